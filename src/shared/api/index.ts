export * from './common';
export * from './lookup';
export * from './balance';
export * from './history';
export * from './credit';
