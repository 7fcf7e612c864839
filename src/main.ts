#!/usr/bin/env node
import { processEnvironment } from './cli/environment.js';
import { runCommandLine } from './cli/run.js';

// A server keeps the process alive through its sockets; every other command ends it with its exit code.
const argv = process.argv.slice(2);
runCommandLine(argv, processEnvironment(argv)).then(
  (outcome) => {
    if (outcome !== 'serving') process.exit(outcome);
  },
  (error: unknown) => {
    // runCommandLine answers every error of a command; one here is a fault of ours, printed whole.
    console.error(error);
    process.exit(1);
  },
);
