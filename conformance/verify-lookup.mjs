// Usage: node verify-lookup.mjs namespace|registry|record FILE
//
// Checks a saved lookup response ({"message": ..., "data": {...}}) on its own: builds the
// object of the entry's digest fields from `data`, digests it with reference.mjs and compares
// the result with data.proof.digest. Prints "OK <digest>" and exits 0, or prints why not and
// exits 1. Like `svc verify`, it trusts nothing but the response and the two npm packages.
import { readFileSync } from 'node:fs';
import { digest } from './reference.mjs';

// The digest fields of each kind of entry (docs/digests.md; proof/fields.go in Go). A
// namespace's state is one only when it is not live (a tombstone's deleted): absent, "" and
// live leave it out, so that live versions digest as they did before namespaces had a state.
const FIELDS = {
  namespace: ['namespace_id', 'description', 'genesis', 'created_by', 'version', 'version_count', 'state'],
  registry: ['namespace_id', 'registry_name', 'description', 'schema', 'tag', 'version', 'version_count',
    'state', 'genesis', 'created_by', 'meta', 'ttl'],
  record: ['namespace_id', 'registry_id', 'registry_name', 'record_name', 'description', 'details', 'version',
    'version_count', 'state', 'genesis', 'created_by', 'meta', 'ttl'],
};
const OBJECTS = new Set(['schema', 'meta', 'details']);
const COUNTS = new Set(['version_count', 'ttl']);
const UNLESS_LIVE = { namespace: new Set(['state']) };

// The namespace lookup shows genesis as "0x" + hex of the timestamp's UTF-8 bytes; the digest
// always takes the timestamp itself.
function genesisText(value) {
  if (typeof value === 'string' && value.startsWith('0x')) {
    return Buffer.from(value.slice(2), 'hex').toString('utf8');
  }
  return value ?? '';
}

export function digestFields(kind, data) {
  const out = {};
  for (const name of FIELDS[kind]) {
    const v = data[name];
    if (UNLESS_LIVE[kind]?.has(name) && (v === undefined || v === '' || v === 'live')) continue;
    if (name === 'genesis') out[name] = genesisText(v);
    else if (OBJECTS.has(name)) out[name] = v ?? {};
    else if (COUNTS.has(name)) out[name] = v ?? 0;
    else out[name] = v ?? '';
  }
  return out;
}

const [kind, file] = process.argv.slice(2);
if (!FIELDS[kind] || !file) {
  console.error('usage: node verify-lookup.mjs namespace|registry|record FILE');
  process.exit(2);
}
const data = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8')).data ?? {};
const claimed = data.proof?.digest;
const computed = digest(digestFields(kind, data));
if (computed === claimed) {
  console.log(`OK ${computed}`);
} else {
  console.log(`FAILED: recomputed ${computed}, proof.digest ${claimed}`);
  process.exit(1);
}
