import { Suspense } from 'react';
import { Navigate, useParams } from 'react-router';
import { AppShell, Center, Loader } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { agentOfTab, DEFAULT_TAB_ID, findTab, tabIdFromSubPath, tabPath } from '../app/tabs';
import { Header } from './Header';
import { MonitoringProvider } from './MonitoringContext';
import { PageNotFound } from './PageNotFound';
import { Sidebar, SIDEBAR_WIDTH } from './Sidebar';

/** The logged-in shell: header, sidebar and the screen of the tab named by the path. */
export function DashboardLayout() {
  const subPath = useParams()['*'] ?? '';
  const [navOpened, nav] = useDisclosure(false);
  const tabId = tabIdFromSubPath(subPath);

  if (!tabId) return <Navigate to={tabPath(DEFAULT_TAB_ID)} replace />;

  const tab = findTab(tabId);
  const agent = tab?.agent ?? agentOfTab(tabId);
  const Screen = tab?.component;

  return (
    <MonitoringProvider>
      <AppShell
        header={{ height: 64 }}
        navbar={{ width: SIDEBAR_WIDTH, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
        padding="xl"
      >
        <AppShell.Header>
          <Header navOpened={navOpened} onToggleNav={nav.toggle} />
        </AppShell.Header>
        <AppShell.Navbar>
          <Sidebar activeTabId={tabId} agent={agent} onNavigate={nav.close} />
        </AppShell.Navbar>
        <AppShell.Main>
          <Suspense
            fallback={
              <Center mih="40vh">
                <Loader />
              </Center>
            }
          >
            {Screen ? <Screen key={tabId} /> : <PageNotFound />}
          </Suspense>
        </AppShell.Main>
      </AppShell>
    </MonitoringProvider>
  );
}
