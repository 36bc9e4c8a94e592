package directory

import (
	"errors"
	"strings"
	"testing"
)

func TestPublishDrafts(t *testing.T) {
	st := StampAt(testNow)
	draft := func(name, state string) SealedRecord {
		r := SealedRecord{RecordID: NewUUID(), RecordName: name, RecordContent: RecordContent{Details: "{}", Meta: "{}", State: state, TTL: 600},
			Version: NewVersion(), VersionCount: 1}
		return r
	}
	heads := map[string]SealedRecord{"a": draft("a", StateDraft), "b": draft("b", StateDraft), "l": draft("l", StateLive)}
	prev, next, err := PublishDrafts([]string{"a", "b"}, heads, st)
	if err != nil || len(next) != 2 || prev[0].RecordName != "a" || next[1].State != StateLive || next[1].VersionCount != 2 || next[0].Version == prev[0].Version {
		t.Fatalf("%+v %v", next, err)
	}
	var nf *NotFoundError
	if _, _, err := PublishDrafts([]string{"a", "x", "y"}, heads, st); !errors.As(err, &nf) || !strings.Contains(nf.Batch, "records[1] (x), records[2] (y)") {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := PublishDrafts([]string{"a", "l"}, heads, st); !errors.Is(err, ErrNotDraft) || !strings.Contains(err.Error(), "records[1] (l) is live") {
		t.Errorf("not a draft: %v", err)
	}
	if _, _, err := PublishDrafts([]string{"a", "a"}, heads, st); !errors.Is(err, ErrInvalid) {
		t.Errorf("twice: %v", err)
	}
	if _, _, err := PublishDrafts(nil, heads, st); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty: %v", err)
	}
	many := make([]string, 30)
	for i := range many {
		many[i] = "m" + strings.Repeat("x", i)
	}
	if _, _, err := PublishDrafts(many, heads, st); !errors.As(err, &nf) || !strings.Contains(nf.Batch, "and 10 more") {
		t.Errorf("many missing: %v", err)
	}
	if in, err := AsDraft(RecordInput{RecordName: "a"}); err != nil || in.State != StateDraft {
		t.Errorf("as draft: %+v %v", in, err)
	}
	if _, err := AsDraft(RecordInput{RecordName: "a", State: StateLive}); !errors.Is(err, ErrInvalid) {
		t.Errorf("live as draft: %v", err)
	}
}
