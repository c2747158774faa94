import { Navigate, Route, Routes } from 'react-router';
import { DashboardLayout } from './DashboardLayout';
import { LoadingScreen } from '../session/LoadingScreen';
import { LoginScreen } from '../session/LoginScreen';
import { useSession } from '../session/useSession';
import { tabPath, DEFAULT_TAB_ID } from './tabs';

/**
 * Spec 000 §2: /dashboard/* needs a session (else back to /); any other path is the login
 * screen when logged out and the overview when logged in.
 */
export function AppRoutes() {
  const { status } = useSession();
  if (status === 'checking') return <LoadingScreen />;
  const loggedIn = status === 'authenticated';
  return (
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
  );
}
