#!/usr/bin/env node
import { processEnvironment } from './cli/environment.js';
import { runCommandLine } from './cli/run.js';

// A server keeps the process alive through its sockets; every other command ends it with its exit code.
runCommandLine(process.argv.slice(2), processEnvironment()).then((outcome) => {
  if (outcome !== 'serving') process.exit(outcome);
});
