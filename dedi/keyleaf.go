package dedi

import (
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
)

// KeysLeaf is the transparency-log leaf of the manifest's key set (kind dedi-keys,
// docs/transparency-log.md): its domain, its keys (kid and the JWK's public members) and its
// updated_at, with the digest, BLAKE2b-256 of the key set's canonical text. The service logs it
// when the key set of an accepted manifest differs from the last one logged.
func (m *Manifest) KeysLeaf() (leaf.KeysLeaf, error) {
	l := leaf.KeysLeaf{Domain: m.Domain, UpdatedAt: m.UpdatedAt.UTC().Format(isoMillis)}
	for _, k := range m.Keys {
		if !k.Supported() {
			continue // it authorizes nothing here (UnsupportedKey): not part of the key set logged
		}
		l.Keys = append(l.Keys, leaf.Key{Kid: k.Kid, Kty: k.Kty, Crv: k.Crv, X: k.X})
	}
	l.Keys = leaf.SortKeys(l.Keys)
	set, err := l.KeySetText()
	if err != nil {
		return leaf.KeysLeaf{}, err
	}
	l.Digest = proof.DigestBytes(set)
	return l, nil
}

// isoMillis is the form of JavaScript's toISOString(), in UTC.
const isoMillis = "2006-01-02T15:04:05.000Z"
