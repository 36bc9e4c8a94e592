package ingest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/directory"
)

// refused is a file that a rule of the directory refused while it was being indexed (a name
// no lookup could reach, details over the size limit): the file's outcome is invalid with this
// reason, and the crawl goes on with the next file.
type refused struct{ reason string }

func (r *refused) Error() string { return r.reason }

// refuse makes a refusal of the file being indexed.
func refuse(format string, args ...any) error { return &refused{reason: fmt.Sprintf(format, args...)} }

// refusal tells a refusal of the file (by the crawler's checks, a rule of the directory, or
// the file's own text) from a failure of the store, and says its reason.
func refusal(err error) (reason string, ok bool) {
	var r *refused
	var de *dedi.Error
	var ve *directory.Error
	switch {
	case err == nil:
		return "", false
	case errors.As(err, &r):
		return r.reason, true
	case errors.As(err, &de):
		return err.Error(), true
	case errors.As(err, &ve) && (errors.Is(err, directory.ErrInvalid) || errors.Is(err, directory.ErrConflict)):
		return err.Error(), true
	}
	return "", false
}

// checkName refuses a registry's or record's name that an origin-hosted namespace cannot hold
// (directory.CheckOriginName: 1 to 1,024 characters of any kind, at most 2,048 bytes, no
// U+0000). Every other name is stored as the file gives it, and every read of the API serves
// it at its exact address, percent-encoded (the contract's AnyEntryName): a crawled name is
// never stored unreachable.
func checkName(kind, name string) error {
	if err := directory.CheckOriginName(name); err != nil {
		var ve *directory.Error
		msg := err.Error()
		if errors.As(err, &ve) {
			msg = strings.TrimPrefix(ve.Message, "Invalid input: ")
		}
		shown := name
		if len(shown) > quotedName {
			shown = strings.ToValidUTF8(shown[:quotedName], "") + "…"
		}
		return refuse("%s %+q: %s: an origin-hosted namespace cannot hold it (names are 1 to %d characters, at most %d bytes, without U+0000)",
			kind, shown, msg, directory.MaxOriginName, directory.MaxOriginNameBytes)
	}
	return nil
}

// How many of the files not accepted the publisher's reason names with their reasons, and by
// name only; and how long each reason it quotes may be.
const (
	namedWithReason = 10
	namedAtMost     = 100
	quotedReason    = 200
	quotedName      = 100 // bytes of a refused name quoted in a reason
)

// notAccepted is what the publisher's status says of the files of m that this crawl did not
// accept (fetched and indexed, or confirmed unchanged): the outcome of the first, and a reason
// that names them ("" when every file was accepted).
func (c *crawl) notAccepted(m *dedi.Manifest) (first, summary string) {
	var names []string
	for _, e := range m.Files {
		f, ok := c.rep.Files[e.Registry]
		if !ok || f.Outcome == string(dedi.Authentic) || f.Outcome == string(dedi.Inactive) {
			continue
		}
		if first == "" {
			first = f.Outcome
		}
		switch n := len(names); {
		case n < namedWithReason:
			reason := f.Reason
			if len(reason) > quotedReason {
				reason = strings.ToValidUTF8(reason[:quotedReason], "") + "…"
			}
			names = append(names, fmt.Sprintf("%s (%s: %s)", e.Registry, f.Outcome, reason))
		case n < namedAtMost:
			names = append(names, e.Registry+" ("+f.Outcome+")")
		default:
			names = append(names, "")
		}
	}
	if len(names) == 0 {
		return "", ""
	}
	shown := names[:min(len(names), namedAtMost)]
	summary = fmt.Sprintf("%d of the %d files the manifest lists were not accepted: %s", len(names), len(m.Files), strings.Join(shown, "; "))
	if more := len(names) - len(shown); more > 0 {
		summary += fmt.Sprintf("; and %d more", more)
	}
	return first, summary
}
