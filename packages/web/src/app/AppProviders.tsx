import { useEffect, type ReactNode } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { setApiHandlers } from '../api/client';
import { TOAST_AUTO_CLOSE_MS, TOAST_LIMIT, TOAST_POSITION, toast } from '../layout/toasts';
import { SessionProvider } from '../session/SessionProvider';
import { theme } from './theme';

/** Any failed call is shown as a toast with its message (spec 000 §8). */
function RequestErrorToasts() {
  useEffect(
    () =>
      setApiHandlers({ onRequestError: (error) => toast.error(error.message, { dedupe: true }) }),
    [],
  );
  return null;
}

export function AppProviders({
  queryClient,
  children,
  env = 'default',
}: {
  queryClient: QueryClient;
  children: ReactNode;
  /** 'test' turns off Mantine transitions and portals. */
  env?: 'default' | 'test';
}) {
  return (
    <QueryClientProvider client={queryClient}>
      <MantineProvider theme={theme} defaultColorScheme="dark" env={env}>
        <Notifications
          position={TOAST_POSITION}
          limit={TOAST_LIMIT}
          autoClose={TOAST_AUTO_CLOSE_MS}
        />
        <RequestErrorToasts />
        <ModalsProvider>
          <SessionProvider>{children}</SessionProvider>
        </ModalsProvider>
      </MantineProvider>
    </QueryClientProvider>
  );
}
