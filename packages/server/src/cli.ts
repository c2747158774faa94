#!/usr/bin/env node
import { configOrExit, serve } from './main.js';

const USAGE = `Usage: adam <command>

Commands:
  serve     start the API and console (default)
  help      show this text`;

const [command = 'serve'] = process.argv.slice(2);

switch (command) {
  case 'serve':
    await serve(configOrExit());
    break;
  case 'help':
  case '--help':
  case '-h':
    console.log(USAGE);
    break;
  default:
    console.error(`Unknown command: ${command}\n\n${USAGE}`);
    process.exit(2);
}
