import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { LoadingScreen } from '../session/LoadingScreen';
import { useSession } from '../session/useSession';
import { tabPath, DEFAULT_TAB_ID } from './tabs';

// The login screen and the dashboard shell load as their own chunks: the first screen carries
// neither the other's code nor the schemas and icons only they use.
const LoginScreen = lazy(() =>
  import('../session/LoginScreen').then((m) => ({ default: m.LoginScreen })),
);
const DashboardLayout = lazy(() =>
  import('./DashboardLayout').then((m) => ({ default: m.DashboardLayout })),
);

/**
 * Spec 000 §2: /dashboard/* needs a session (else back to /); any other path is the login
 * screen when logged out and the overview when logged in.
 */
export function AppRoutes() {
  const { status } = useSession();
  if (status === 'checking') return <LoadingScreen />;
  const loggedIn = status === 'authenticated';
  return (
    <Suspense fallback={<LoadingScreen />}>
      <Routes>
        <Route
          path="/dashboard/*"
          element={loggedIn ? <DashboardLayout /> : <Navigate to="/" replace />}
        />
        <Route
          path="*"
          element={loggedIn ? <Navigate to={tabPath(DEFAULT_TAB_ID)} replace /> : <LoginScreen />}
        />
      </Routes>
    </Suspense>
  );
}
