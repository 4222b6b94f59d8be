// `npm run openapi`: writes the OpenAPI document the server serves at /api/v1/openapi.json to
// openapi/openapi.json, so the repository ships it and a diff shows every change to the API.
// The conformance test fails while the committed file differs from what this generates.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from '../src/main/core/http/openapi/document';

const file = path.resolve(import.meta.dirname, '..', OPENAPI_FILE);
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, serializeOpenApiDocument(generateOpenApiDocument()));
console.log(`wrote ${path.relative(process.cwd(), file)}`);
