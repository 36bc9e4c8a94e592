package directory

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/mr-tron/base58"
)

// CheckEntryID checks that id has the form of an entry's id, as the state query takes it: a
// namespace_id (did:svc: and base58btc of 16 bytes) or a registry_id or record_id (a UUID in
// its canonical lowercase form). The message says what is wrong.
func CheckEntryID(id string) error {
	if rest, ok := strings.CutPrefix(id, NamespaceIDPrefix); ok {
		b, err := base58.Decode(rest)
		if err != nil || len(b) != 16 || base58.Encode(b) != rest {
			return fmt.Errorf("%q is not a namespace_id: %s followed by base58btc of 16 bytes", id, NamespaceIDPrefix)
		}
		return nil
	}
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return fmt.Errorf("%q is neither a namespace_id (%s...) nor a registry_id or record_id (a lowercase UUID such as 0193a1b2-0000-7000-8000-000000000001)", id, NamespaceIDPrefix)
	}
	return nil
}
