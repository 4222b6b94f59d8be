// A separate process that opens databases with the core's openDatabase when told to (first-open.test.ts):
// processes, not threads, because SQLite's file locks only conflict between processes.
import { openDatabase } from '../../src/main/core/db/open';

process.on('message', (file: string) => {
  try {
    openDatabase({ file }).close();
    process.send!('opened');
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    process.send!(`failed: ${code ?? ''} ${message ?? String(error)}`);
  }
});
process.send!('ready');
