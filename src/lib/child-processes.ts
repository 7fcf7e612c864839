import type { ChildProcess } from 'node:child_process';

/**
 * Whether a pooled child (and its IPC channel) keeps this process alive: held while it works for a caller,
 * let go while idle, so an idle pool never holds the process open at exit.
 */
export function holdProcessOpen(child: ChildProcess, hold: boolean): void {
  const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
  if (hold) {
    child.ref();
    channel?.ref?.();
  } else {
    child.unref();
    channel?.unref?.();
  }
}

/** SIGKILLs the child and resolves once it has exited (at once if it already has). */
export async function killAndWait(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  child.kill('SIGKILL');
  await exited;
}
