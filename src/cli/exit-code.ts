/**
 * The exit code of the running command: set by the command, read by the entry point.
 * Its own module so the entry point can read it without loading the services.
 */
export let exitCode = 0;
export const setExitCode = (code: number): void => {
  exitCode = code;
};
