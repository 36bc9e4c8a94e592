package ingest

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// index makes an accepted file the content of its registry in the publisher's namespace, in
// one transaction, with the file's copy (df): the registry is created on the first file, its
// description and meta follow the file's, a new record is added, a changed one gets a new
// version, an unchanged one none, and a record that left the file is suspended (its versions
// stay readable by version_id; it is reinstated if it comes back). An inactive file leaves the
// registry inactive. It returns the number of versions made and the namespace's id.
func (s *Service) index(ctx context.Context, domain string, f *dedi.File, df store.DediFile) (n int, nsID string, err error) {
	owner, err := s.ownerID(ctx)
	if err != nil {
		return 0, "", err
	}
	creator := s.cfg.CreatorDID
	if err := checkName("registry", f.Registry.Name); err != nil {
		return 0, "", err
	}
	err = s.cfg.Store.InTx(ctx, func(tx *store.Tx) error {
		n = 0
		if nsID, err = tx.OriginNamespace(domain, owner, creator); err != nil {
			return err
		}
		g, found, err := tx.OriginRegistry(nsID, f.Registry.Name)
		if err != nil {
			return err
		}
		desc := f.Registry.Description
		if !found {
			if g, _, err = tx.CreateRegistry(nsID, creator, directory.RegistryInput{RegistryName: f.Registry.Name, Tag: registryTag(f.Registry),
				Description: desc, Schema: registrySchema(f.Registry), Meta: f.Registry.Meta}); err != nil {
				return err
			}
			n++
		} else {
			p := directory.RegistryPatch{Description: &desc, Meta: directory.NonNil(f.Registry.Meta)}
			if g.State == directory.StateInactive {
				p.Action = directory.ActionActivate // records are written to a live registry
			}
			next, changed, err := g.Next(p, tx.Stamp())
			if err != nil {
				return err
			}
			if changed {
				if err := tx.UpdateRegistry(g, next); err != nil {
					return err
				}
				g = next
				n++
			}
		}
		made, err := indexRecords(tx, g, creator, f)
		if err != nil {
			return err
		}
		n += made
		if df.State == store.OriginInactive {
			next, changed, err := g.Next(directory.RegistryPatch{Action: directory.ActionDeactivate}, tx.Stamp())
			if err != nil {
				return err
			}
			if changed {
				if err := tx.UpdateRegistry(g, next); err != nil {
					return err
				}
				n++
			}
		}
		return tx.PutDediFile(df)
	})
	return n, nsID, err
}

// indexRecords writes the records of the file into the live registry g: the records it had
// before first (a new version of each that changed), then the new ones. The records are read
// from the file a batch at a time, so that a large file is not held as Go values all at once.
func indexRecords(tx *store.Tx, g directory.SealedRegistry, creator string, f *dedi.File) (int, error) {
	heads, err := tx.RecordHeads(g.RegistryID)
	if err != nil {
		return 0, err
	}
	n, total := 0, f.RecordCount()
	all := len(heads) == 0 // every record is new
	var adds []int         // else the indexes of the new records
	for lo := 0; lo < total && !all; lo += directory.MaxBatch {
		recs, err := f.RecordRange(lo, min(lo+directory.MaxBatch, total))
		if err != nil {
			return n, err
		}
		for i, r := range recs {
			if err := checkName("record", r.Name); err != nil {
				return n, err
			}
			h, ok := heads[r.Name]
			if !ok {
				adds = append(adds, lo+i)
				continue
			}
			delete(heads, r.Name)
			desc := r.Description
			p := directory.RecordPatch{Details: r.Details, Description: &desc, Meta: directory.NonNil(r.Meta)}
			if h.State == directory.StateSuspended {
				p.Action = directory.ActionReinstate
			}
			next, changed, err := h.Next(p, tx.Stamp())
			if err != nil {
				return n, fmt.Errorf("record %q: %w", r.Name, err)
			}
			if changed {
				if err := tx.UpdateRecord(h, next); err != nil {
					return n, err
				}
				n++
			}
		}
	}
	count := len(adds)
	if all {
		count = total
	}
	for k := 0; k < count; k += directory.MaxBatch {
		in := make([]directory.RecordInput, 0, min(directory.MaxBatch, count-k))
		for j := k; j < min(k+directory.MaxBatch, count); j++ {
			i := j
			if !all {
				i = adds[j]
			}
			r, err := f.RecordAt(i)
			if err != nil {
				return n, err
			}
			if err := checkName("record", r.Name); err != nil {
				return n, err
			}
			in = append(in, directory.RecordInput{RecordName: r.Name, Description: r.Description, Details: r.Details, Meta: r.Meta})
		}
		if _, err := tx.AddRecordsTo(g, creator, in); err != nil {
			return n, err // it names the record refused (records[i] (name): ...)
		}
		n += len(in)
	}
	for _, h := range heads { // left the file
		if h.State != directory.StateLive {
			continue
		}
		next, changed, err := h.Next(directory.RecordPatch{Action: directory.ActionSuspend}, tx.Stamp())
		if err != nil {
			return n, err
		}
		if changed {
			if err := tx.UpdateRecord(h, next); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// registrySchema is the registry's schema as the directory keeps it: an inline schema as it
// is; a URL that names a core schema as the pinned copy (the one its records were checked
// against); another schema named by URL (already applied by the verification) as a schema
// that says where it is.
func registrySchema(r dedi.Registry) map[string]any {
	if m, ok := r.Schema.(map[string]any); ok {
		return m
	}
	if c := dedi.CoreSchemaFor(r.SchemaURL); c != nil {
		return c.Document()
	}
	return map[string]any{"type": "object", "description": "The publisher's schema is at " + r.SchemaURL}
}

// registryTag is the tag a new origin-hosted registry reads as: the svc tag of the core schema
// its schema is (Public_key, Revoke, Membership: public_key, revoke, membership), by URL or
// inline, else custom.
func registryTag(r dedi.Registry) string {
	if c := dedi.CoreSchemaMatching(r.Schema); c != nil && c.Tag != "" {
		return c.Tag
	}
	return directory.TagCustom
}

// deactivate makes the registry of an origin-hosted namespace inactive (a withdrawn file).
func (s *Service) deactivate(ctx context.Context, nsID, registry string) error {
	return s.cfg.Store.InTx(ctx, func(tx *store.Tx) error {
		g, found, err := tx.OriginRegistry(nsID, registry)
		if err != nil || !found {
			return err
		}
		next, changed, err := g.Next(directory.RegistryPatch{Action: directory.ActionDeactivate}, tx.Stamp())
		if err != nil || !changed {
			return err
		}
		return tx.UpdateRegistry(g, next)
	})
}
