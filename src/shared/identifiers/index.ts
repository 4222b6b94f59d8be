export { BCRA_ENTITIES, CVU_ENTITY_CODE, CVU_PSP, UNKNOWN_PSP_NAME } from './bcra-entities.js';
export {
  analyzeCbu,
  cbuCheckDigitsValid,
  describeCbuProgress,
  normalizeIdentifierInput,
  withCheckDigits,
  type CbuAnalysis,
  type CbuFailureReason,
  type CbuProgress,
} from './cbu.js';
export { analyzeAlias, type AliasAnalysis } from './alias.js';
export { analyzeTaxId, withCuitCheckDigit, type TaxIdAnalysis, type TaxIdFailureReason } from './cuit.js';
