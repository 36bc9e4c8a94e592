package jsonlog

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// slogLine is the line slog's own JSON handler writes for a.
func slogLine(t testing.TB, a Access) string {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(a.Time, slog.LevelInfo, "request", 0)
	r.AddAttrs(a.Attrs()...)
	if err := slog.NewJSONHandler(&buf, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func checkSame(t testing.TB, a Access) {
	t.Helper()
	got, ok := AppendAccess([]byte("prefix"), a)
	if !ok {
		t.Fatalf("AppendAccess(%+v) refused", a)
	}
	want := "prefix" + slogLine(t, a)
	if string(got) != want {
		t.Fatalf("AppendAccess(%+v):\n got %q\nwant %q", a, got, want)
	}
}

var zones = []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("X", -7*3600), time.Local}

func TestAppendAccessIsSlogsLine(t *testing.T) {
	base := time.Date(2026, 11, 26, 17, 30, 1, 123456789, time.UTC)
	strs := []string{"", "GET", "/svc/lookup/:namespace/:registry/:record", "unmatched", "other",
		`a"b\c`, "line\nbreak\r\ttab", "\x00\x01\x1f\x7f", "<script>&amp;</script>", "é, ü, 漢字, 🎉",
		"\u2028\u2029", "bad \xff\xfe utf-8 \xc3", "\xed\xa0\x80 surrogate", strings.Repeat("x", 300)}
	floats := []float64{0, 0.001, 0.5, 1, 1.25, 12.345, 999.999, 1e6, 123456789.123, 1e20, 1e21, 1.5e22,
		1e-6, 9.99e-7, 1e-7, 5e-324, 1e-100, math.MaxFloat64, -0.001, -1e-7, math.Copysign(0, -1)}
	for i, s := range strs {
		for j, f := range floats {
			a := Access{Time: base.Add(time.Duration(i*j) * time.Millisecond).In(zones[(i+j)%len(zones)]),
				Method: s, Route: strs[(i+1)%len(strs)], Status: []int{200, 304, 404, 500, 0, -1, 1 << 40}[(i+j)%7],
				DurationMS: f, RequestID: strs[(i+j)%len(strs)]}
			checkSame(t, a)
		}
	}
	// Times with a monotonic reading, whole seconds, and the ends of the years slog writes.
	for _, tm := range []time.Time{time.Now(), time.Unix(1, 0), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 100, zones[1])} {
		checkSame(t, Access{Time: tm, Method: "GET", Route: "/healthz", Status: 200, DurationMS: 0.042, RequestID: "abc"})
	}
}

// TestAppendAccessRandom compares random records: random bytes (valid or not as UTF-8) and
// random runes in the strings, random durations at every magnitude.
func TestAppendAccessRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		var sb strings.Builder
		for n := rng.IntN(24); n > 0; n-- {
			switch rng.IntN(4) {
			case 0:
				sb.WriteByte(byte(rng.IntN(256)))
			case 1:
				sb.WriteByte(byte(rng.IntN(0x80)))
			case 2:
				sb.WriteRune(rune(rng.IntN(0x3000)))
			default:
				sb.WriteRune(rune(rng.IntN(utf8.MaxRune + 1)))
			}
		}
		return sb.String()
	}
	for i := 0; i < 20000; i++ {
		f := math.Float64frombits(rng.Uint64())
		if i%2 == 0 {
			f = float64(rng.Int64N(1<<40)) / 1000 // what the access log passes: microseconds / 1000
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		a := Access{Time: time.Unix(rng.Int64N(253402300799), rng.Int64N(1e9)).In(zones[i%len(zones)]),
			Method: str(), Route: str(), Status: rng.IntN(1000), DurationMS: f, RequestID: str()}
		checkSame(t, a)
	}
}

func FuzzAppendAccess(f *testing.F) {
	f.Add("GET", "/healthz", 200, 0.25, "id", int64(1764178201), int64(5))
	f.Add("\xff\u2028", "a\"\\\n", -1, 1e-9, "\x00", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, method, route string, status int, dur float64, id string, sec, nsec int64) {
		if math.IsNaN(dur) || math.IsInf(dur, 0) || sec < 0 || sec > 253402300799 {
			return
		}
		checkSame(t, Access{Time: time.Unix(sec, nsec%1e9).UTC(), Method: method, Route: route, Status: status, DurationMS: dur, RequestID: id})
	})
}

func TestAppendAccessRefusesWhatSlogWritesOtherwise(t *testing.T) {
	for _, a := range []Access{
		{Time: time.Now(), DurationMS: math.NaN()},
		{Time: time.Now(), DurationMS: math.Inf(1)},
		{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if b, ok := AppendAccess([]byte("x"), a); ok || string(b) != "x" {
			t.Errorf("AppendAccess(%+v) = %q, %v; want it refused and nothing appended", a, b, ok)
		}
	}
}
