// Which frames may call the IPC channels: the app's own top frame, loaded from one of its folders
// (`app://titular/`, see app-protocol.ts; the dev server in development). A folder is matched with its trailing slash,
// so `app://titular/` does not also admit `app://titular.evil/`, nor a folder `…/renderer` a sibling `…/renderer-x/`.
// No Electron import: the rule is tested on plain Node.

/** A predicate over (frame URL, whether it is the top frame) for these folder URLs. */
export function trustedSender(folders: readonly string[]): (url: string, topFrame: boolean) => boolean {
  const prefixes = folders.map((folder) => (folder.endsWith('/') ? folder : `${folder}/`));
  return (url, topFrame) => topFrame && prefixes.some((prefix) => url.startsWith(prefix));
}
