import { Suspense, useCallback } from 'react';
import { Navigate, useParams } from 'react-router';
import { Alert, AppShell, Button, Center, Group, Loader, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlugConnectedX } from '@tabler/icons-react';
import {
  agentOfTab,
  DEFAULT_TAB_ID,
  findTab,
  tabAllowed,
  tabIdFromSubPath,
  tabPath,
  tabRole,
} from '../navigation/tabRegistry';
import { applyRealtimeMessage } from './realtimeTable';
import { tabScreen } from './tabs';
import { LabProvider } from '../features/agent2/lab/LabProvider';
import { HeaderFigures } from '../features/monitoring/HeaderFigures';
import { SystemStatus } from '../features/monitoring/SystemStatus';
import { Header } from '../layout/Header';
import { MonitoringProvider } from '../layout/MonitoringContext';
import { PageNotFound } from '../layout/PageNotFound';
import { RoleRequired } from '../layout/RoleRequired';
import { Sidebar, SIDEBAR_WIDTH } from '../layout/Sidebar';
import { toast } from '../layout/toasts';
import { RealtimeProvider, useRealtime } from '../lib/realtime/RealtimeProvider';
import { WS_AUTH_FAILURE_MESSAGE, type RealtimeMessage } from '../lib/realtime/realtimeClient';
import { fetchWsTicket } from '../session/auth.api';
import { getApiKey } from '../session/storage';
import { useRole } from '../session/useCan';

/** Spec 000 §8: the banner shown while the channel refuses the session's key. */
function RealtimeAuthBanner() {
  const { authFailed, reconnect } = useRealtime();
  if (!authFailed) return null;
  return (
    <Alert color="red" variant="light" icon={<IconPlugConnectedX size={18} />} mb="lg" role="alert">
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">{WS_AUTH_FAILURE_MESSAGE}</Text>
        <Button size="xs" variant="light" color="red" onClick={reconnect}>
          Reconnect
        </Button>
      </Group>
    </Alert>
  );
}

/** The logged-in shell: header, sidebar, the realtime channel and the screen the path names. */
export function DashboardLayout() {
  const subPath = useParams()['*'] ?? '';
  const [navOpened, nav] = useDisclosure(false);
  const queryClient = useQueryClient();
  const role = useRole();
  const onMessage = useCallback(
    (message: RealtimeMessage) => applyRealtimeMessage(queryClient, message),
    [queryClient],
  );
  const tabId = tabIdFromSubPath(subPath);

  if (!tabId) return <Navigate to={tabPath(DEFAULT_TAB_ID)} replace />;

  const tab = findTab(tabId);
  const agent = tab?.agent ?? agentOfTab(tabId);
  const Screen = tab ? tabScreen(tab.id) : undefined;

  return (
    <RealtimeProvider
      getKey={getApiKey}
      getTicket={fetchWsTicket}
      onMessage={onMessage}
      onAuthFailure={() => toast.error(WS_AUTH_FAILURE_MESSAGE, { dedupe: true })}
    >
      <MonitoringProvider>
        <AppShell
          header={{ height: 64 }}
          navbar={{ width: SIDEBAR_WIDTH, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
          padding="xl"
        >
          <AppShell.Header>
            <Header navOpened={navOpened} onToggleNav={nav.toggle} figures={<HeaderFigures />} />
          </AppShell.Header>
          <AppShell.Navbar>
            <Sidebar
              activeTabId={tabId}
              agent={agent}
              onNavigate={nav.close}
              footer={<SystemStatus />}
            />
          </AppShell.Navbar>
          <AppShell.Main>
            <RealtimeAuthBanner />
            {/* Above the screens: Agent 2's simulation lives on while moving between its screens. */}
            <LabProvider>
              <Suspense
                fallback={
                  <Center mih="40vh">
                    <Loader />
                  </Center>
                }
              >
                {!tab || !Screen ? (
                  <PageNotFound />
                ) : tabAllowed(tab, role) ? (
                  <Screen key={tabId} />
                ) : (
                  <RoleRequired needed={tabRole(tab)} held={role} />
                )}
              </Suspense>
            </LabProvider>
          </AppShell.Main>
        </AppShell>
      </MonitoringProvider>
    </RealtimeProvider>
  );
}
