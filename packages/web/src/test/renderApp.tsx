import { render } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import { AppProviders } from '../app/AppProviders';
import { AppRoutes } from '../app/AppRoutes';
import { createQueryClient } from '../lib/queryClient';

let currentPath = '';

function LocationProbe() {
  const location = useLocation();
  currentPath = location.pathname + location.search;
  return null;
}

/** The whole console at `path`, as main.tsx mounts it but in a memory router. */
export function renderApp(path = '/') {
  const queryClient = createQueryClient();
  const ui = (
    <MemoryRouter initialEntries={[path]}>
      <AppProviders queryClient={queryClient} env="test">
        <LocationProbe />
        <AppRoutes />
      </AppProviders>
    </MemoryRouter>
  );
  const result = render(ui);
  return {
    ...result,
    queryClient,
    /** Unmounts and mounts the same tree again (a page reload keeping storage). */
    remount: () => {
      result.unmount();
      return renderApp(currentPath);
    },
    location: () => currentPath,
  };
}
