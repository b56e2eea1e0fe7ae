import { useEffect } from 'react';
import { Link, match, navigate, usePath } from './router';
import { SessionProvider, useSession } from './session';
import { SocketProvider, useSocket } from './realtime/socket';
import { AuthScreen } from './screens/AuthScreen';
import { VerifyEmailScreen } from './screens/VerifyEmailScreen';
import { ProjectsScreen } from './screens/ProjectsScreen';
import { ProjectScreen } from './screens/ProjectScreen';
import { DeviceScreen } from './screens/device/DeviceScreen';
import { AccountScreen } from './screens/account/AccountScreen';
import { NotificationsScreen } from './screens/NotificationsScreen';
import { HistoryScreen } from './screens/history/HistoryScreen';
import { TemplateScreen } from './screens/templates/TemplateScreen';
import { NotFound } from './screens/NotFound';
import { FleetScreen } from './screens/fleet/FleetScreen';
import { JobsScreen } from './screens/jobs/JobsScreen';
import { JobScreen } from './screens/jobs/JobScreen';
import { FirmwareScreen } from './screens/firmware/FirmwareScreen';
import { pinName } from './pins/pin-types';
import { UnreadBadge } from './screens/UnreadBadge';

export function App() {
  return (
    <SessionProvider>
      <Shell />
    </SessionProvider>
  );
}

function Shell() {
  const { session, signOut } = useSession();
  const path = usePath();
  const publicRoute = path === '/signin' || path === '/signup';
  /** The verify link's page works signed in or not. */
  const verifying = path === '/verify-email';

  useEffect(() => {
    if (verifying) return;
    if (!session && !publicRoute) navigate('/signin');
    if (session && (publicRoute || path === '/')) navigate('/projects');
  }, [session, publicRoute, verifying, path]);

  if (verifying) return <VerifyEmailScreen />;
  if (!session) return publicRoute ? <AuthScreen mode={path === '/signup' ? 'signup' : 'signin'} /> : null;

  return (
    <SocketProvider token={session.accessToken}>
      <nav className="topbar">
        <Link to="/projects" className="brand">
          Device Data Service
        </Link>
        <span className="topbar-links">
          <Link to="/projects">Projects</Link>
          <Link to="/fleet">Fleet</Link>
          <Link to="/jobs">Jobs</Link>
          <Link to="/firmware">Firmware</Link>
          <Link to="/notifications">
            Notifications <UnreadBadge />
          </Link>
          <Link to="/account">Account</Link>
        </span>
        <span className="spacer" />
        <span className="muted topbar-user">{session.user.email}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </nav>
      <main>
        <ConnectionBanner />
        <Routes path={path} />
      </main>
    </SocketProvider>
  );
}

function Routes({ path }: { path: string }) {
  let m: Record<string, string> | null;
  if (match('/projects', path)) return <ProjectsScreen />;
  if ((m = match('/projects/:projectId', path))) return <ProjectScreen projectId={m.projectId as string} tab="dashboard" />;
  if ((m = match('/projects/:projectId/:tab', path))) return <ProjectScreen projectId={m.projectId as string} tab={m.tab as string} />;
  if ((m = match('/devices/:deviceId', path))) return <DeviceScreen deviceId={m.deviceId as string} />;
  if ((m = match('/devices/:deviceId/pins/:pin', path)))
    return <HistoryScreen deviceId={m.deviceId as string} pin={pinName(m.pin as string)} />;
  if ((m = match('/templates/:templateId', path))) return <TemplateScreen templateId={m.templateId as string} />;
  if (match('/fleet', path)) return <FleetScreen />;
  if (match('/jobs', path)) return <JobsScreen />;
  if ((m = match('/jobs/:jobId', path))) return <JobScreen jobId={m.jobId as string} />;
  if (match('/firmware', path)) return <FirmwareScreen />;
  if (match('/account', path)) return <AccountScreen />;
  if (match('/notifications', path)) return <NotificationsScreen />;
  return <NotFound />;
}

function ConnectionBanner() {
  const { connected, epoch } = useSocket();
  if (connected || epoch === 0) return null;
  return (
    <p className="banner" role="status" data-testid="reconnecting">
      Live connection lost — reconnecting…
    </p>
  );
}
