// The channel names alone, without zod: the sandboxed preload imports only this (it cannot load
// npm packages). contract.ts checks at compile time that both lists name the same channels.
export const CHANNEL_NAMES = [
  'session.get',
  'lookup.account',
  'lookup.creditReport',
  'balance.get',
  'balance.dailyConsumption',
  'credits.purchase',
  'history.list',
  'history.exportCsv',
  'keys.list',
  'keys.create',
  'keys.reveal',
  'keys.rotate',
  'keys.revoke',
  'audit.list',
  'users.list',
  'users.add',
  'users.setRole',
  'vault.status',
  'vault.lock',
  'vault.unlock',
  'startup.status',
  'startup.unlock',
  'startup.setup',
  'settings.get',
  'settings.update',
  'settings.setUpstreamKey',
  'data.backup',
  'clipboard.clearSecretLater',
  'bulk.create',
  'bulk.list',
  'bulk.get',
  'bulk.results',
  'bulk.start',
  'bulk.pause',
  'bulk.cancel',
  'bulk.exportCsv',
] as const;

export type ChannelName = (typeof CHANNEL_NAMES)[number];

/** The ipcMain/ipcRenderer channel of a contract channel. */
export const ipcChannel = (name: ChannelName) => `titular:${name}`;
