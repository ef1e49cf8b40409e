import type { HubFailure } from './server-host.js';

/** The buttons of the failure dialog, in order (their index is what Electron's showMessageBox returns). */
export const FAILURE_BUTTONS = ['Retry', 'Open log folder', 'Quit'] as const;

/** What the failure dialog shows (Electron `MessageBoxOptions` minus the Electron parts). */
export interface FailureDialog {
  type: 'error';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
}

const CAUSES: Record<HubFailure['cause'], string> = {
  timeout: 'The hub started but did not report that it was ready in time.',
  error: 'The hub refused to start.',
  exit: 'The hub process ended.',
  spawn: 'The hub process could not be started.',
};

/**
 * The error window shown when the hub cannot start or keeps crashing (issue "Desktop app": "an
 * error window that says what failed and where the log is").
 */
export function failureDialog(failure: HubFailure, paths: { logFile: string; dataDir: string }): FailureDialog {
  return {
    type: 'error',
    title: 'Pushhub',
    message: 'Pushhub could not start its hub',
    detail: [
      CAUSES[failure.cause],
      '',
      failure.message,
      '',
      `The log is in ${paths.logFile}`,
      `Your data is in ${paths.dataDir}`,
    ].join('\n'),
    buttons: [...FAILURE_BUTTONS],
    defaultId: 0,
    cancelId: FAILURE_BUTTONS.indexOf('Quit'),
  };
}
