import type { DesktopHubStatus } from './desktop-bridge.js';
import type { HubState } from './server-host.js';

/**
 * The status the bridge reports, from the host's state (see server-host.ts) and the last pending
 * count the hub gave.
 */
export function desktopStatus(
  hub: HubState,
  pendingDeliveries: number | null,
  paths: { dataDir: string; logFile: string },
): DesktopHubStatus {
  const running = hub.state === 'running' ? hub.ready : null;
  return {
    state: hub.state,
    url: running?.url ?? null,
    port: running?.port ?? null,
    pendingDeliveries: running ? pendingDeliveries : null,
    dataDir: paths.dataDir,
    logFile: paths.logFile,
    message: hub.state === 'failed' || hub.state === 'restarting' ? hub.failure.message : null,
  };
}
