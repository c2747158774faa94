import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { LoadingScreen } from '../session/LoadingScreen';
import { useSession } from '../session/useSession';
import { tabPath, DEFAULT_TAB_ID } from '../navigation/tabRegistry';

// The login screen and the dashboard shell load as their own chunks: the first screen carries
// neither the other's code nor the schemas and icons only they use.
const LoginScreen = lazy(() =>
  import('../session/LoginScreen').then((m) => ({ default: m.LoginScreen })),
);
const FirstPasswordScreen = lazy(() =>
  import('../session/FirstPasswordScreen').then((m) => ({ default: m.FirstPasswordScreen })),
);
const DashboardLayout = lazy(() =>
  import('./DashboardLayout').then((m) => ({ default: m.DashboardLayout })),
);

/**
 * Spec 000 §2: /dashboard/* needs a session (else back to /); any other path is the login
 * screen when logged out and the overview when logged in. A user who must change a one-time
 * password sees only that form, whatever the path; once changed, the path they asked for opens.
 */
export function AppRoutes() {
  const { status, user } = useSession();
  if (status === 'checking') return <LoadingScreen />;
  const loggedIn = status === 'authenticated';
  // A one-time password opens nothing but its change (the server answers 403 to the rest).
  if (loggedIn && user?.must_change_password) {
    return (
      <Suspense fallback={<LoadingScreen />}>
        <FirstPasswordScreen />
      </Suspense>
    );
  }
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
