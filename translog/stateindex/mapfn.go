package stateindex

import (
	"fmt"

	"github.com/svc-directory/svc/translog/leaf"
)

// KeysOf is the map function: the keys a log leaf's text names, by the leaf's kind.
//
//   - namespace, registry, record (a public version): the entry's own id (IDKey of its
//     namespace_id, registry_id or record_id), so an id's list is its logged versions;
//   - dedi-keys (a DeDi publisher's key change): PublisherKey of its domain;
//   - domain (a namespace gained or lost a domain): DomainKey of its domain;
//   - state (the log's commitment to the index's root): no key.
//
// The leaves carry no registry or record names, so no leaf names a RegistryNameKey or
// RecordNameKey yet (docs/state-index.md, "Names"). A text that is not a canonical leaf of
// one of these kinds is refused, and so is one that names a key without an encoding (an empty
// id).
func KeysOf(text []byte) ([]Key, error) {
	keys, err := keysOf(text)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if _, err := k.Encode(); err != nil {
			return nil, fmt.Errorf("stateindex: leaf %.80q names no key: %w", text, err)
		}
	}
	return keys, nil
}

func keysOf(text []byte) ([]Key, error) {
	switch kind := leaf.KindOf(text); kind {
	case leaf.KindNamespace, leaf.KindRegistry, leaf.KindRecord:
		l, err := leaf.Parse(text)
		if err != nil {
			return nil, err
		}
		switch l.Kind {
		case leaf.KindNamespace:
			return []Key{IDKey(l.NamespaceID)}, nil
		case leaf.KindRegistry:
			return []Key{IDKey(l.RegistryID)}, nil
		}
		return []Key{IDKey(l.RecordID)}, nil
	case leaf.KindDediKeys:
		l, err := leaf.ParseKeys(text)
		if err != nil {
			return nil, err
		}
		return []Key{PublisherKey(l.Domain)}, nil
	case leaf.KindState:
		// The log's commitment to the index itself: it names no key.
		if _, err := leaf.ParseState(text); err != nil {
			return nil, err
		}
		return []Key{}, nil
	case leaf.KindDomain:
		l, err := leaf.ParseDomain(text)
		if err != nil {
			return nil, err
		}
		return []Key{DomainKey(l.Domain)}, nil
	default:
		return nil, fmt.Errorf("stateindex: leaf %.80q is of no kind the index knows (%q)", text, kind)
	}
}
