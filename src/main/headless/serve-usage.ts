// `titular serve`'s defaults and help text: printed by `serve --help`, and by the CLI's `titular help serve`
// (the CLI entry does not start the server, but it answers for it).
export const DEFAULT_PORT = 8787;
/**
 * SIGTERM/SIGINT: how long requests in flight get to finish before every connection still open is
 * closed (a client that sent half a request, a remote lookup still waiting on its upstream). A
 * directory lookup takes milliseconds; the desktop gives its API the same time when it quits.
 */
export const SHUTDOWN_GRACE_MS = 5_000;

export const SERVE_USAGE = `Usage: titular serve [--port N] [--allow-origin ORIGIN]... [--data-dir DIR] [--synchronous NORMAL|FULL] [--log] [--ui [--user EMAIL]]

  --port N                 port on 127.0.0.1 (default ${DEFAULT_PORT}, or TITULAR_PORT; 0 picks a free one)
  --allow-origin ORIGIN    let web pages of ORIGIN (e.g. http://localhost:3000) call the API from a browser;
                           repeatable (or TITULAR_ALLOW_ORIGINS, comma-separated); none by default
  --data-dir DIR           the data directory (default: TITULAR_DATA_DIR, else the platform's)
  --synchronous NORMAL|FULL  FULL answers only once the writes are on disk (or TITULAR_SYNCHRONOUS)
  --log                    one line per request on stdout (never keys or bodies); internal faults
                           (a full disk, once a minute) go to stderr with or without it
  --ui                     also serve the desktop UI to a browser (prints its session link)
  --user EMAIL             with --ui: the session's user (default: the desktop's, the first admin unless chosen)
  -V, --version            print the version

Also run as \`npm run serve -- [options]\` from the project's root.

A passphrase-protected vault opens with TITULAR_PASSPHRASE, or TITULAR_PASSPHRASE_FILE naming a file that holds it
(kept out of the environment, which other processes of your user can read); not both.
An empty TITULAR_PORT, TITULAR_ALLOW_ORIGINS, TITULAR_DATA_DIR, TITULAR_SYNCHRONOUS or TITULAR_PASSPHRASE(_FILE) counts as unset; an empty flag is refused.
SIGTERM, SIGINT or SIGHUP: requests in flight get ${SHUTDOWN_GRACE_MS / 1000} s, then the connections still open are closed and
the database is closed; a second one stops at once (exit 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).`;
