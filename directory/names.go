package directory

import (
	"strings"
	"unicode/utf8"
)

// The names of registries and records: one rule for each kind of namespace, read by both the
// writes of this service and the crawler of DeDi files (docs/dedi-files.md, "Names").
//
//   - A native namespace (created through this API) names its entries in NativeNamePattern:
//     the contract's EntryName, which every write of the API checks.
//   - An origin-hosted namespace (indexed from a publisher's DeDi files) names them as the
//     DeDi draft allows: any characters, 1 to MaxOriginName of them (CheckOriginName). A
//     DeDi server must serve each record at exactly {namespace}/{registry_name}/{record_name},
//     so every read of the API (lookups, versions, queries, search, the relay) takes such a
//     name, percent-encoded in its path: the contract's AnyEntryName.
//
// A native name is an origin name too, so a read takes the union of both rules, which is
// simply the wider one; a write takes the native rule alone.

// NativeNamePattern is the grammar of a native registry's or record's name: letters, digits
// and `._~-`, starting with a letter or a digit, at most MaxNativeName characters. It is the
// contract's EntryName (openapi.yaml).
const NativeNamePattern = `^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$`

// MaxNativeName bounds a native name, in bytes (every allowed character is one byte).
const MaxNativeName = 128

// MaxOriginName is the most characters (Unicode code points, as JSON Schema counts a string's
// length) an origin-hosted registry's or record's name may have: the DeDi draft's 1,024, and
// the contract's AnyEntryName maxLength.
const MaxOriginName = 1024

// MaxOriginNameBytes is the most bytes (UTF-8) an origin-hosted name may take: the database's
// bound, not the draft's. Postgres keeps a name in btree indexes whose rows hold at most 2,704
// bytes beside the registry's id, its state and the record's id; 2,048 bytes keeps every
// index row under it, with room. It is 1,024 characters of any script whose letters take one
// or two bytes (Latin, Greek, Cyrillic, Hebrew, Arabic...), 682 of three (CJK), 512 of four.
const MaxOriginNameBytes = 2048

// CheckNativeName refuses a name outside NativeNamePattern, saying which rule it breaks; what
// names the name (kind, such as "record", and where it comes from) is the caller's.
func CheckNativeName(name string) error {
	switch {
	case name == "":
		return Invalid.With("the name is empty")
	case len(name) > MaxNativeName:
		return Invalid.With("the name is %d bytes long; at most %d are allowed", len(name), MaxNativeName)
	case !alnum(name[0]):
		return Invalid.With("the name %+q does not start with a letter or a digit (A-Z, a-z, 0-9)", name)
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '.' && c != '_' && c != '~' && c != '-' {
			return Invalid.With("the name %+q has a character outside A-Z, a-z, 0-9 and ._~- at byte %d", name, i)
		}
	}
	return nil
}

// CheckOriginName refuses a name that an origin-hosted namespace cannot hold: empty, longer
// than MaxOriginName characters or MaxOriginNameBytes bytes, not UTF-8, holding U+0000 (no
// database text holds it), or `.` or `..` (a URL's path segment of these, even
// percent-encoded, is removed by every URL parser that follows RFC 3986 or the WHATWG URL
// standard, browsers and fetch included: no address reaches it). Every other name is stored as
// it is and served at its exact address.
func CheckOriginName(name string) error {
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return Invalid.With("the name is empty")
	case name == "." || name == "..":
		return Invalid.With("the name %q is a dot segment, which URLs remove (even as %%2E): no address could reach it", name)
	case n > MaxOriginName:
		return Invalid.With("the name is %d characters long; at most %d are allowed", n, MaxOriginName)
	case len(name) > MaxOriginNameBytes:
		return Invalid.With("the name is %d bytes long in UTF-8; at most %d are stored (the database's bound: %d characters of a script of one or two bytes each)",
			len(name), MaxOriginNameBytes, MaxOriginName)
	case !utf8.ValidString(name):
		return Invalid.With("the name is not UTF-8")
	case strings.IndexByte(name, 0) >= 0:
		return Invalid.With("the name holds the character U+0000, which no database text holds")
	}
	return nil
}

func alnum(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
