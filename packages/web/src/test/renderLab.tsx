/** Test helper: one Agent 2 screen inside the app's providers and a laboratory at a given state. */
import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { AppProviders } from '../app/AppProviders';
import { createQueryClient } from '../lib/queryClient';
import { json, mockFetch, type Route } from './fetchMock';
import { loggedIn } from './session';
import { page } from '../features/snippets/snippets.fixtures';
import { LabProvider } from '../features/agent2/lab/LabProvider';
import type { LabState } from '../features/agent2/lab/types';

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
