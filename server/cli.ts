#!/usr/bin/env node
// The `pushhub` executable: runs the CLI program on this process's arguments and environment.
import { CommanderError } from 'commander';
import { createProgram } from './cli-program.js';

const program = createProgram({
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  onServing: (hub) => {
    const stop = (signal: string) => {
      process.stderr.write(`${signal}: closing the hub\n`);
      hub.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  },
  onListening: (stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
});

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  process.stderr.write(`pushhub: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
