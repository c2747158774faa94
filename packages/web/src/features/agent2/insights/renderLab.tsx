/** Test helper: one Agent 2 screen inside the app's providers and a laboratory at a given state. */
import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { AppProviders } from '../../../app/AppProviders';
import { createQueryClient } from '../../../app/queryClient';
import { json, mockFetch, type Route } from '../../../test/fetchMock';
import { loggedIn } from '../../../test/session';
import { page } from '../../snippets/snippets.fixtures';
import { LabProvider } from '../lab/LabProvider';
import type { LabState } from '../lab/types';

export function renderLab(
  ui: ReactNode,
  {
    state,
    path = '/dashboard/agent2/overview',
    routes = {},
  }: { state: LabState; path?: string; routes?: Record<string, Route | Response> },
) {
  // The laboratory fetches a few snippets for its themes when it first opens.
  const fetches = mockFetch({ ...loggedIn(), 'GET /snippets': json(page([])), ...routes });
  const result = render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders queryClient={createQueryClient()} env="test">
        <LabProvider initialState={state}>{ui}</LabProvider>
      </AppProviders>
    </MemoryRouter>,
  );
  return { ...result, ...fetches };
}
