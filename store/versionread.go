package store

import (
	"github.com/svc-directory/svc/directory"
)

// The one way a read selects a version, for all three kinds: an entry's head (alias h, the
// latest version) joined to the version the selection names (alias v): the latest, the one of
// a version id, or the one in effect at the end of an as_on day. The joins from the namespace
// down are outer ones, so that a read that misses still returns the levels that are there, and
// says which level it missed (a directory.NotFoundError) in the statement that missed it.

// versionJoin is the LEFT JOIN of the versions table (alias v) of the head h, whose key column
// is idCol, on the version sel selects; args are its parameters.
func versionJoin(table, h, idCol string, sel directory.VersionSel) (join string, args []any) {
	on := ` LEFT JOIN ` + table + ` v ON v.` + idCol + ` = ` + h + `.` + idCol + ` AND v.version = `
	switch {
	case sel.VersionID != "":
		return on + `?`, []any{sel.VersionID}
	case !sel.Before.IsZero():
		return on + `(SELECT w.version FROM ` + table + ` w WHERE w.` + idCol + ` = ` + h + `.` + idCol +
			` AND w.created_at < ? ORDER BY w.version_count DESC LIMIT 1)`, []any{sel.Before.UnixMilli()}
	}
	return on + h + `.version`, nil
}

// missedLevel is the not-found of a read that returned rows (0 or 1) whose heads down from the
// namespace were found as the found flags say (in order: namespace, registry, record) and whose
// selected version was found or not; nil when the read found its version.
func missedLevel(rows int, kind string, sel directory.VersionSel, names []string, found []bool, version bool) error {
	levels := []directory.Missing{directory.MissingNamespace, directory.MissingRegistry, directory.MissingRecord}
	if rows == 0 {
		return directory.NotFound(directory.MissingNamespace, names[0])
	}
	for i, ok := range found {
		if !ok {
			return directory.NotFound(levels[i+1], names[i+1])
		}
	}
	if !version {
		return directory.VersionMissing(kind, sel)
	}
	return nil
}

// levelIndex is the place of a namespace, registry or record level in a read's names.
func levelIndex(m directory.Missing) int {
	switch m {
	case directory.MissingRegistry:
		return 1
	case directory.MissingRecord:
		return 2
	}
	return 0
}
