package directory

// EntryNamePattern is the grammar of a registry's or a record's name: letters, digits and
// `._~-`, starting with a letter or a digit, at most 128 characters. It is the contract's
// EntryName (openapi.yaml), which every path that names an entry (lookups, versions, the
// relay of DeDi files) is checked against; a name outside it could be stored but never read.
const EntryNamePattern = `^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$`

// maxEntryName bounds an entry's name, in bytes (every allowed character is one byte).
const maxEntryName = 128

// CheckEntryName refuses a name outside EntryNamePattern, saying which rule it breaks; what
// names the name (kind, such as "record", and where it comes from) is the caller's.
func CheckEntryName(name string) error {
	switch {
	case name == "":
		return Invalid.With("the name is empty")
	case len(name) > maxEntryName:
		return Invalid.With("the name is %d bytes long; at most %d are allowed", len(name), maxEntryName)
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

func alnum(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
