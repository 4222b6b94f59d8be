// The version the app, the CLI and the server report: package.json's, bundled in at build time (a
// named JSON import keeps only this field), so a support ticket can say which build answered.
import { version } from '../../package.json';

export const TITULAR_VERSION: string = version;
