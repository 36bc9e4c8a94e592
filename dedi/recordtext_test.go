package dedi

import (
	"bytes"
	"context"
	"reflect"
	"runtime"
	"testing"
)

// TestVerifyKeepsRecordsAsText: a verified file holds its records as text, not as Go values
// (which take several times the file's size), and reads them back as ParseFile does.
func TestVerifyKeepsRecordsAsText(t *testing.T) {
	const n = 10000
	in := largeFixture(t, n).input(t, now)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := Verify(context.Background(), in)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if res.Outcome != Authentic {
		t.Fatalf("%s (%s)", res.Outcome, res.Reason)
	}
	f := res.File
	if kept := int64(after.HeapAlloc) - int64(before.HeapAlloc); kept > int64(len(in.File))/4 {
		t.Errorf("the verified file of %d bytes keeps %d bytes of heap", len(in.File), kept)
	}
	if f.Records != nil || f.RecordCount() != n {
		t.Fatalf("records: %d as values, %d counted", len(f.Records), f.RecordCount())
	}

	want, err := ParseFile(in.File, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.RecordRange(0, n)
	if err != nil || !reflect.DeepEqual(got, want.Records) {
		t.Fatalf("RecordRange differs from ParseFile's records (%v)", err)
	}
	if r, err := f.RecordAt(n - 1); err != nil || !reflect.DeepEqual(r, want.Records[n-1]) {
		t.Fatalf("RecordAt(%d): %+v, %v", n-1, r, err)
	}
	if !reflect.DeepEqual(f.Document(), want.Document()) {
		t.Fatal("Document differs from ParseFile's")
	}
	c1, err1 := f.Canonical()
	c2, err2 := want.Canonical()
	if err1 != nil || err2 != nil || !bytes.Equal(c1, c2) {
		t.Fatalf("Canonical differs from ParseFile's (%v, %v)", err1, err2)
	}
	if err := f.CheckSignature(); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(res)
}

// The records' canonical text that the parse keeps for the signature check is the text that
// parsing them again writes, and the check drops it (a verified file is held while indexed).
func TestParseKeepsTheRecordsCanonicalTextForTheSignature(t *testing.T) {
	in := largeFixture(t, 1000).input(t, now)
	f, err := parseFileText(in.File, Limits{})
	if err != nil || f.canon == nil {
		t.Fatalf("parse: %v, canonical text kept: %v", err, f != nil && f.canon != nil)
	}
	kept, err := recordsText{f}.AppendCanonicalText(nil)
	if err != nil {
		t.Fatal(err)
	}
	f.canon = nil
	again, err := recordsText{f}.AppendCanonicalText(nil)
	if err != nil || !bytes.Equal(kept, again) {
		t.Fatalf("the kept canonical text (%d bytes) differs from the records parsed again (%d bytes, %v)", len(kept), len(again), err)
	}
	g, err := parseAndCheckFile(in.File, Limits{})
	if err != nil || g.canon != nil {
		t.Fatalf("after the signature check: %v, canonical text still kept: %v", err, g != nil && g.canon != nil)
	}
}

// TestCompactSize: the size of a text without the whitespace between its tokens (whitespace
// inside strings counts, escaped quotes do not end them), plus the margin.
func TestCompactSize(t *testing.T) {
	for in, want := range map[string]int{
		"{\n  \"a b\" : [ 1, \"x\\\" }\" ],\t\"c\":null }\r\n": len(`{"a b":[1,"x\" }"],"c":null}`),
		`""`: 2,
		``:   0,
	} {
		if got := compactSize([]byte(in)); got != want+want/64+64 {
			t.Errorf("%q: %d, want %d", in, got, want+want/64+64)
		}
	}
}
