import { agents } from './agents.js';
import { ask } from './ask.js';
import { batchGroup } from './batch.js';
import { cancel } from './cancel.js';
import type { CommandEntry } from './command.js';
import { completionCommand } from './completion.js';
import { config } from './config/index.js';
import { continueCommand } from './continue.js';
import { doctor } from './doctor.js';
import { fork } from './fork.js';
import { gate } from './gate.js';
import { inject } from './inject.js';
import { mcp } from './mcp.js';
import { models } from './models.js';
import { policies } from './policies.js';
import { render } from './render.js';
import { resume } from './resume.js';
import { sessions } from './sessions/index.js';
import { sim } from './sim.js';
import { toolResult } from './tool-result.js';
import { watch } from './watch.js';

/** Every command, in the order `nsed --help` lists them. */
export const commands: readonly CommandEntry[] = [
  ask,
  batchGroup,
  continueCommand,
  fork,
  resume,
  watch,
  gate,
  inject,
  toolResult,
  cancel,
  sessions,
  render,
  policies,
  agents,
  models,
  config,
  doctor,
  mcp,
  sim,
  completionCommand(() => commands),
];
