package store

import (
	"strings"

	"github.com/svc-directory/svc/directory"
)

// The writes of delete and restore (directory/deleted.go): each is a new version of the entry,
// its tombstone (state deleted) or its restored live version, appended through appendVersions
// like any other (logged, announced to watchers). What lies under a deleted namespace or
// registry is hidden by the reads (DeletedLevel, the lists' filters), not written again, so a
// delete or a restore of a registry of any size is a fixed number of statements.

// visibleUnder counts what a namespace's (registryID "") or a registry's delete hides from the
// platform's statistics: its registries that are not deleted and their public records that
// are not deleted.
func (t *Tx) visibleUnder(namespaceID, registryID string) (registries, records int64, err error) {
	cond, arg := "namespace_id = ?", namespaceID
	if registryID != "" {
		cond, arg = "registry_id = ?", registryID
	}
	var row struct{ Registries, Records int64 }
	err = t.db.Raw(`SELECT COUNT(*) AS registries, COALESCE(SUM(record_count - draft_count), 0) AS records
		FROM registries WHERE `+cond+` AND state <> ?`, arg, directory.StateDeleted).Scan(&row).Error
	return row.Registries, row.Records, translate(err, "count deleted")
}

// counted adds sign times these counts to the platform's statistics.
func (t *Tx) counted(sign int64, counts map[string]int64) error {
	for _, name := range []string{counterNamespaces, counterRegistries, counterRecords} {
		if n := counts[name]; n != 0 {
			if err := addToCounter(t.db, name, int(sign*n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteNamespace replaces the head prev (read and locked in this transaction) with next, its
// tombstone or its restored version (directory.SealedNamespace.Delete), keeping reason with a
// tombstone, and appends next. A tombstone releases the namespace's verified domain (its
// sources, challenges and open requests for it go, as when the owner removes it); a restore
// does not take it back. It returns how many registries and public records were hidden (or
// shown again).
func (t *Tx) DeleteNamespace(prev, next directory.SealedNamespace, domain, reason string) (registries, records int64, err error) {
	deleting := directory.Gone(next.State)
	sign := int64(1)
	if deleting {
		sign = -1
	}
	if registries, records, err = t.visibleUnder(prev.NamespaceID, ""); err != nil {
		return 0, 0, err
	}
	if deleting && domain != "" {
		// The loss is logged with the method of the oldest source (the one that gained it).
		srcs, err := t.LockSources(prev.NamespaceID, domain)
		if err != nil {
			return 0, 0, err
		}
		method := ""
		if len(srcs) > 0 {
			method = srcs[0].Method
		}
		for _, del := range []func(string, string) (int64, error){t.DeleteSources, t.DeleteChallenge, t.RemoveOpenRequests} {
			if _, err := del(prev.NamespaceID, domain); err != nil {
				return 0, 0, err
			}
		}
		if _, _, err := t.ReleaseDomain(prev.NamespaceID, domain, method); err != nil {
			return 0, 0, err
		}
	}
	if err := t.UpdateNamespace(prev, next); err != nil {
		return 0, 0, err
	}
	if err := t.db.Exec(`UPDATE namespaces SET deleted_reason = ? WHERE namespace_id = ?`, reason, prev.NamespaceID).Error; err != nil {
		return 0, 0, translate(err, "delete namespace")
	}
	return registries, records, t.counted(sign, map[string]int64{counterNamespaces: 1, counterRegistries: registries, counterRecords: records})
}

// DeleteRegistry replaces the head prev (read and locked in this transaction) with next, its
// tombstone or its restored version, keeping reason with a tombstone, counts it off (or back
// on) its namespace, and appends next. It returns how many public records were hidden (or
// shown again).
func (t *Tx) DeleteRegistry(prev, next directory.SealedRegistry, reason string) (records int64, err error) {
	sign := int64(1)
	if directory.Gone(next.State) {
		sign = -1
	}
	if err := t.UpdateRegistry(prev, next); err != nil {
		return 0, err
	}
	var counts struct{ Records int64 }
	if err := t.db.Raw(`UPDATE registries SET deleted_reason = ? WHERE registry_id = ? RETURNING record_count - draft_count AS records`,
		reason, prev.RegistryID).Scan(&counts).Error; err != nil {
		return 0, translate(err, "delete registry")
	}
	if err := t.db.Exec(`UPDATE namespaces SET registry_count = registry_count + ? WHERE namespace_id = ?`, sign, prev.NamespaceID).Error; err != nil {
		return 0, translate(err, "count registries")
	}
	return counts.Records, t.counted(sign, map[string]int64{counterRegistries: 1, counterRecords: counts.Records})
}

// DeleteRecords replaces the heads prev (records of one registry, read and locked in this
// transaction) with next, their tombstones or restored versions (directory.ChangeRecords: only
// the version, its count, state, digest and proof type change, at one moment), keeping reason
// with tombstones, appends the versions, and counts the records off (or back on) the registry
// and the statistics. A head that is no longer its prev is directory.ErrStaleVersion.
func (t *Tx) DeleteRecords(prev, next []directory.SealedRecord, reason string) error {
	if len(next) == 0 {
		return nil
	}
	if err := t.setRecordStates(prev, next, reason); err != nil {
		return err
	}
	n := int64(len(next))
	if directory.Gone(next[0].State) {
		n = -n
	}
	if err := t.db.Exec(`UPDATE registries SET record_count = record_count + ? WHERE registry_id = ?`, n, next[0].RegistryID).Error; err != nil {
		return translate(err, "count records")
	}
	return addToCounter(t.db, counterRecords, int(n))
}

// setRecordStates writes the heads and versions of a batch of one registry's records whose
// states changed to next[0].State at one moment (publish-records, delete-records,
// restore/records), in a fixed number of statements whatever its size; reason is kept on the
// heads.
func (t *Tx) setRecordStates(prev, next []directory.SealedRecord, reason string) error {
	rows := make([]string, len(next))
	args := make([]any, 0, 5*len(next)+3)
	for i, n := range next {
		rows[i] = "(?, ?, ?, ?, ?)"
		args = append(args, n.RecordID, prev[i].Version, n.Version, n.Digest, n.ProofType)
	}
	args = append(args, next[0].State, next[0].UpdatedAt, reason)
	res := t.db.Exec(`WITH v (record_id, prev, version, digest, proof_type) AS (VALUES `+strings.Join(rows, ", ")+`)
		UPDATE records SET version = v.version, version_count = records.version_count + 1, state = ?, digest = v.digest,
			proof_type = v.proof_type, updated_at = ?, deleted_reason = ?
		FROM v WHERE records.record_id = v.record_id AND records.version = v.prev`, args...)
	if res.Error != nil {
		return translate(res.Error, "record states")
	}
	if res.RowsAffected != int64(len(next)) {
		return directory.ErrStaleVersion
	}
	t.recordWrites += len(next)
	versions := make([]recVersionRow, len(next))
	for i, n := range next {
		versions[i] = recVersionRow{RowRecord: rowRecordOf(n), CreatedAt: n.UpdatedAt}
	}
	return appendVersions(t.db, t.s.sinks, versions)
}
