package inflate

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// ---- helpers to build DEFLATE streams bit by bit ----

type bitw struct {
	buf []byte
	acc uint64
	n   uint
}

// bits writes the n low bits of v, LSB first.
func (w *bitw) bits(v uint64, n uint) {
	for i := uint(0); i < n; i++ {
		w.acc |= (v >> i & 1) << w.n
		w.n++
		if w.n == 8 {
			w.buf = append(w.buf, byte(w.acc))
			w.acc, w.n = 0, 0
		}
	}
}

// code writes a Huffman code of length l (MSB of the code first).
func (w *bitw) code(c uint32, l uint) {
	for i := int(l) - 1; i >= 0; i-- {
		w.bits(uint64(c>>uint(i)&1), 1)
	}
}

func (w *bitw) align() {
	for w.n != 0 {
		w.bits(0, 1)
	}
}

func (w *bitw) bytes() []byte {
	w.align()
	return w.buf
}

// canonical returns the canonical Huffman codes for lens (RFC 1951 3.2.2).
func canonical(lens []uint8) []uint32 {
	var count [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]uint32
	c := uint32(0)
	for l := 1; l < 16; l++ {
		c = (c + uint32(count[l-1])) << 1
		next[l] = c
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l != 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

var fixedLitLens, fixedDistLens = func() ([]uint8, []uint8) {
	l := make([]uint8, 288)
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	d := make([]uint8, 32)
	for i := range d {
		d[i] = 5
	}
	return l, d
}()

// huffWriter writes symbols of one block with given lit/len and distance codes.
type huffWriter struct {
	w                   *bitw
	litLens, distLens   []uint8
	litCodes, distCodes []uint32
}

func newHuffWriter(w *bitw, litLens, distLens []uint8) *huffWriter {
	return &huffWriter{w, litLens, distLens, canonical(litLens), canonical(distLens)}
}

func (h *huffWriter) sym(s int) { h.w.code(h.litCodes[s], uint(h.litLens[s])) }

func (h *huffWriter) lit(b ...byte) {
	for _, c := range b {
		h.sym(int(c))
	}
}

func (h *huffWriter) eob() { h.sym(256) }

// match writes a length/distance pair with canonical symbol choice.
func (h *huffWriter) match(length, dist int) {
	ls := 28
	for ls > 0 && int(lengthBase[ls]) > length {
		ls--
	}
	if length == 258 {
		ls = 28
	}
	h.sym(257 + ls)
	h.w.bits(uint64(length-int(lengthBase[ls])), uint(lengthExtra[ls]))
	ds := 29
	for int(distBase[ds]) > dist {
		ds--
	}
	h.distSym(ds)
	h.w.bits(uint64(dist-int(distBase[ds])), uint(distExtra[ds]))
}

func (h *huffWriter) distSym(s int) { h.w.code(h.distCodes[s], uint(h.distLens[s])) }

// clLens is a complete code length code: lengths 0..12 get 4 bits, 13..18
// get 5 bits (13/16 + 6/32 = 1).
var clLens = func() []uint8 {
	l := make([]uint8, 19)
	for i := range l {
		if i < 13 {
			l[i] = 4
		} else {
			l[i] = 5
		}
	}
	return l
}()

// rawLengths returns a final dynamic block with 257 lit/len and 1 distance code lengths whose
// code-length symbols body writes (put writes one symbol), followed by padding: for malformed
// length sequences that dynHeader cannot express.
func rawLengths(body func(w *bitw, put func(sym int))) []byte {
	w := &bitw{}
	w.bits(1, 1)
	w.bits(2, 2)
	w.bits(0, 5)
	w.bits(0, 5)
	w.bits(19-4, 4)
	for _, s := range clOrder {
		w.bits(uint64(clLens[s]), 3)
	}
	codes := canonical(clLens)
	body(w, func(sym int) { w.code(codes[sym], uint(clLens[sym])) })
	w.bits(0, 32)
	return w.bytes()
}

// dynHeader writes BTYPE=2 header fields for the given code lengths (the
// caller wrote BFINAL). Zero runs use symbols 17/18.
func dynHeader(w *bitw, litLens, distLens []uint8) {
	w.bits(2, 2)
	w.bits(uint64(len(litLens)-257), 5)
	w.bits(uint64(len(distLens)-1), 5)
	w.bits(19-4, 4)
	for _, s := range clOrder {
		w.bits(uint64(clLens[s]), 3)
	}
	codes := canonical(clLens)
	all := append(append([]uint8{}, litLens...), distLens...)
	put := func(s int) { w.code(codes[s], uint(clLens[s])) }
	for i := 0; i < len(all); {
		if all[i] == 0 {
			j := i
			for j < len(all) && all[j] == 0 && j-i < 138 {
				j++
			}
			switch n := j - i; {
			case n >= 11:
				put(18)
				w.bits(uint64(n-11), 7)
				i = j
				continue
			case n >= 3:
				put(17)
				w.bits(uint64(n-3), 3)
				i = j
				continue
			}
		}
		put(int(all[i]))
		i++
	}
}

// gz wraps raw DEFLATE data in a minimal gzip member for content want.
func gz(deflate, want []byte) []byte {
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}
	out = append(out, deflate...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(want))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(want)))
	return out
}

func stdGzip(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := stdgzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func stdDecode(src []byte, max int64) ([]byte, error) {
	zr, err := stdgzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(zr, max))
}

// ---- known vectors ----

type vec struct {
	name string
	src  []byte
	want []byte
}

func knownVectors(t testing.TB) []vec {
	var vs []vec
	add := func(name string, src, want []byte) { vs = append(vs, vec{name, src, want}) }

	add("empty", stdGzip(t, nil, 6), []byte{})
	add("stored", stdGzip(t, []byte("hello, stored world"), 0), []byte("hello, stored world"))
	big := bytes.Repeat([]byte("0123456789abcdefghij"), 10000)
	add("stored-multiblock", stdGzip(t, big, 0), big)
	add("dynamic", stdGzip(t, big, 9), big)

	// Fixed block with literals only.
	{
		w := &bitw{}
		w.bits(1, 1)
		w.bits(1, 2)
		h := newHuffWriter(w, fixedLitLens, fixedDistLens)
		h.lit([]byte("abc\xff\x00")...)
		h.eob()
		add("fixed-literals", gz(w.bytes(), []byte("abc\xff\x00")), []byte("abc\xff\x00"))
	}
	// Overlapping copies at distances 1..8 and 9, lengths 3..40.
	for dist := 1; dist <= 9; dist++ {
		for _, length := range []int{3, 7, 8, 9, 16, 40} {
			w := &bitw{}
			w.bits(1, 1)
			w.bits(1, 2)
			h := newHuffWriter(w, fixedLitLens, fixedDistLens)
			var want []byte
			for i := 0; i < dist; i++ {
				want = append(want, byte('A'+i))
			}
			h.lit(want...)
			h.match(length, dist)
			for i := 0; i < length; i++ {
				want = append(want, want[len(want)-dist])
			}
			h.lit('z')
			want = append(want, 'z')
			h.eob()
			add("overlap-d"+itoa(dist)+"-l"+itoa(length), gz(w.bytes(), want), want)
		}
	}
	// Long run: 'x' then many 258-byte dist=1 copies, using both encodings
	// of length 258 (symbol 285, and symbol 284 with extra 31).
	{
		w := &bitw{}
		w.bits(1, 1)
		w.bits(1, 2)
		h := newHuffWriter(w, fixedLitLens, fixedDistLens)
		h.lit('x')
		want := []byte{'x'}
		for i := 0; i < 1000; i++ {
			if i%2 == 0 {
				h.match(258, 1)
			} else {
				h.sym(284)
				w.bits(31, 5)
				h.distSym(0)
			}
			want = append(want, bytes.Repeat([]byte{'x'}, 258)...)
		}
		h.eob()
		add("long-run-258", gz(w.bytes(), want), want)
	}
	// Maximum distance 32768: 32768 bytes of stored data then a fixed
	// block copying from the very start.
	{
		r := rand.New(rand.NewSource(7))
		pre := make([]byte, 32768)
		r.Read(pre)
		w := &bitw{}
		w.bits(0, 1)
		w.bits(0, 2)
		w.align()
		for off := 0; off < len(pre); off += 16384 {
			chunk := pre[off : off+16384]
			w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(len(chunk)))
			w.buf = binary.LittleEndian.AppendUint16(w.buf, ^uint16(len(chunk)))
			w.buf = append(w.buf, chunk...)
			if off == 0 {
				w.bits(0, 1)
				w.bits(0, 2)
				w.align()
			}
		}
		w.bits(1, 1)
		w.bits(1, 2)
		h := newHuffWriter(w, fixedLitLens, fixedDistLens)
		h.match(258, 32768)
		h.eob()
		want := append(append([]byte{}, pre...), pre[:258]...)
		add("max-distance", gz(w.bytes(), want), want)
	}
	// Dynamic block with a single 1-bit distance code (allowed incomplete)
	// and one with no distance codes at all.
	{
		lit := make([]uint8, 258)
		lit['a'] = 1
		lit[256] = 2
		lit[257] = 2 // length 3
		w := &bitw{}
		w.bits(1, 1)
		dynHeader(w, lit, []uint8{1})
		h := newHuffWriter(w, lit, []uint8{1})
		h.lit('a')
		h.sym(257)
		h.distSym(0)
		h.eob()
		add("dynamic-single-distance-code", gz(w.bytes(), []byte("aaaa")), []byte("aaaa"))

		lit2 := make([]uint8, 257)
		lit2['a'] = 1
		lit2[256] = 1
		w = &bitw{}
		w.bits(1, 1)
		dynHeader(w, lit2, []uint8{0})
		h = newHuffWriter(w, lit2, []uint8{0})
		h.lit('a', 'a')
		h.eob()
		add("dynamic-no-distance-codes", gz(w.bytes(), []byte("aa")), []byte("aa"))
	}
	// Multi-member, including an empty member, and header fields.
	{
		a := stdGzip(t, []byte("first member;"), 6)
		b := stdGzip(t, nil, 1)
		c := stdGzip(t, big, 1)
		want := append([]byte("first member;"), big...)
		add("multi-member", append(append(append([]byte{}, a...), b...), c...), want)

		var buf bytes.Buffer
		zw := stdgzip.NewWriter(&buf)
		zw.Name = "name.txt"
		zw.Comment = "a comment"
		zw.Extra = []byte("extra-field-data")
		zw.Write([]byte("with header fields"))
		zw.Close()
		add("header-fields", buf.Bytes(), []byte("with header fields"))

		add("fhcrc", withFHCRC(stdGzip(t, []byte("crc'd header"), 6)), []byte("crc'd header"))
	}
	return vs
}

// withFHCRC inserts a valid header CRC into a plain 10-byte-header member.
func withFHCRC(m []byte) []byte {
	h := append([]byte{}, m[:10]...)
	h[3] |= 0x02
	h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	return append(h, m[10:]...)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestKnownVectors(t *testing.T) {
	for _, v := range knownVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			// The vectors must be valid for compress/gzip too.
			std, err := stdDecode(v.src, 1<<30)
			if err != nil || !bytes.Equal(std, v.want) {
				t.Fatalf("compress/gzip: err=%v equal=%v", err, bytes.Equal(std, v.want))
			}
			got, err := Decode(nil, v.src, 1<<30)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !bytes.Equal(got, v.want) {
				t.Fatalf("Decode: got %d bytes, want %d", len(got), len(v.want))
			}
			// Appending to a non-empty dst, with and without spare capacity.
			pre := []byte("prefix")
			got, err = Decode(pre, v.src, 1<<30)
			if err != nil || !bytes.Equal(got, append([]byte("prefix"), v.want...)) {
				t.Fatalf("Decode with prefix: err=%v", err)
			}
			got, err = Decode(make([]byte, 3, 1<<20), v.src, 1<<30)
			if err != nil || !bytes.Equal(got[3:], v.want) || len(got) != 3+len(v.want) {
				t.Fatalf("Decode with capacity: err=%v", err)
			}
			// Limits: exact fits, one less is too large.
			if _, err := Decode(nil, v.src, len(v.want)); err != nil {
				t.Fatalf("limit=len: %v", err)
			}
			if len(v.want) > 0 {
				if _, err := Decode(nil, v.src, len(v.want)-1); !errors.Is(err, ErrTooLarge) {
					t.Fatalf("limit=len-1: got %v, want ErrTooLarge", err)
				}
			}
		})
	}
}

// ---- corruption cases ----

func TestCorrupt(t *testing.T) {
	valid := stdGzip(t, bytes.Repeat([]byte("some text to compress, "), 50), 6)
	fixed := func(body func(h *huffWriter)) []byte {
		w := &bitw{}
		w.bits(1, 1)
		w.bits(1, 2)
		body(newHuffWriter(w, fixedLitLens, fixedDistLens))
		return w.bytes()
	}
	dyn := func(lit, dist []uint8, body func(h *huffWriter)) []byte {
		w := &bitw{}
		w.bits(1, 1)
		dynHeader(w, lit, dist)
		if body != nil {
			body(newHuffWriter(w, lit, dist))
		}
		return w.bytes()
	}
	litAB := make([]uint8, 258) // 'a' and EOB, 1 bit each
	litAB['a'], litAB[256] = 1, 1

	mod := func(b []byte, f func([]byte) []byte) []byte { return f(append([]byte{}, b...)) }

	cases := []struct {
		name string
		src  []byte
		msg  string
	}{
		{"empty input", nil, "empty input"},
		{"bad magic", mod(valid, func(b []byte) []byte { b[0] = 0x1e; return b }), "bad magic"},
		{"bad method", mod(valid, func(b []byte) []byte { b[2] = 7; return b }), "compression method"},
		{"reserved flags", mod(valid, func(b []byte) []byte { b[3] |= 0x20; return b }), "reserved"},
		{"truncated header", valid[:7], "truncated gzip header"},
		{"truncated extra", mod(valid[:10], func(b []byte) []byte { b[3] |= 4; return append(b, 5, 0, 1) }), "FEXTRA"},
		{"truncated name", mod(valid[:10], func(b []byte) []byte { b[3] |= 8; return append(b, 'a', 'b') }), "FNAME"},
		{"long name", mod(valid[:10], func(b []byte) []byte {
			b[3] |= 8
			return append(append(b, bytes.Repeat([]byte("n"), 600)...), 0)
		}), "too long"},
		{"bad header crc", mod(withFHCRC(valid), func(b []byte) []byte { b[10] ^= 1; return b }), "header CRC"},
		{"truncated data", valid[:len(valid)-20], "truncated"},
		{"truncated trailer", valid[:len(valid)-3], "trailer"},
		{"bad crc", mod(valid, func(b []byte) []byte { b[len(b)-8] ^= 1; return b }), "CRC-32 mismatch"},
		{"bad isize", mod(valid, func(b []byte) []byte { b[len(b)-4] ^= 1; return b }), "ISIZE mismatch"},
		{"trailing garbage", append(append([]byte{}, valid...), "junk junk junk"...), "trailing garbage"},
		{"trailing short garbage", append(append([]byte{}, valid...), 0x1f, 0x8b), "truncated gzip header"},
		{"trailing zeros", append(append([]byte{}, valid...), make([]byte, 16)...), "trailing garbage"},
		{"block type 3", gz([]byte{0x07}, nil), "block type 3"},
		{"stored len/nlen", gz([]byte{0x01, 5, 0, 0xfa, 0xfe, 'h', 'e', 'l', 'l', 'o'}, []byte("hello")), "NLEN"},
		{"stored truncated", gz([]byte{0x01, 5, 0, 0xfa, 0xff, 'h', 'e'}, []byte("hello"))[:17], "truncated"},
		{"symbol 286", gz(fixed(func(h *huffWriter) { h.lit('a'); h.sym(286); h.distSym(0); h.eob() }), nil), "invalid lit/len code"},
		{"symbol 287", gz(fixed(func(h *huffWriter) { h.lit('a'); h.sym(287); h.distSym(0); h.eob() }), nil), "invalid lit/len code"},
		{"distance 30", gz(fixed(func(h *huffWriter) { h.lit('a'); h.sym(257); h.distSym(30); h.eob() }), nil), "invalid distance code"},
		{"distance 31", gz(fixed(func(h *huffWriter) { h.lit('a'); h.sym(257); h.distSym(31); h.eob() }), nil), "invalid distance code"},
		{"distance too far", gz(fixed(func(h *huffWriter) { h.lit('a', 'b'); h.match(3, 3); h.eob() }), nil), "too far back"},
		{"distance at start", gz(fixed(func(h *huffWriter) { h.match(3, 1); h.eob() }), nil), "too far back"},
		{"HLIT > 286", gz([]byte{0x05 | 30<<3, 0, 0, 0, 0, 0}, nil), "HLIT"},
		{"HDIST > 30", gz([]byte{0x05, 30 << 0 << 0, 0, 0, 0, 0}, nil), "HDIST"},
		{"oversubscribed lit/len", gz(dyn(func() []uint8 { l := append([]uint8{}, litAB...); l['b'] = 1; return l }(), []uint8{1}, nil), nil), "over-subscribed"},
		{"incomplete lit/len", gz(dyn(func() []uint8 { l := make([]uint8, 257); l['a'], l[256] = 2, 2; return l }(), []uint8{1}, nil), nil), "invalid lit/len code"},
		{"oversubscribed distance", gz(dyn(litAB, []uint8{1, 1, 1}, nil), nil), "invalid distance code"},
		{"incomplete distance", gz(dyn(litAB, []uint8{2, 2}, nil), nil), "invalid distance code"},
		{"unused code of single-code distance tree", gz(dyn(func() []uint8 { l := append([]uint8{}, litAB...); l[256] = 2; l[257] = 2; return l }(), []uint8{1},
			func(h *huffWriter) { h.lit('a'); h.sym(257); h.w.bits(1, 1); h.eob() }), nil), "invalid distance code"},
		{"distance with empty distance tree", gz(dyn(func() []uint8 { l := append([]uint8{}, litAB...); l[256] = 2; l[257] = 2; return l }(), []uint8{0},
			func(h *huffWriter) { h.lit('a'); h.sym(257); h.w.bits(0, 1); h.eob() }), nil), "invalid distance code"},
		{"repeat before first length", gz(rawLengths(func(w *bitw, put func(int)) {
			put(16)
			w.bits(0, 2)
		}), nil), "no previous length"},
		{"repeat overflow", gz(rawLengths(func(w *bitw, put func(int)) {
			for i := 0; i < 3; i++ { // 3*138 > 258
				put(18)
				w.bits(127, 7)
			}
		}), nil), "overflows"},
		{"incomplete code length code", gz(func() []byte {
			w := &bitw{}
			w.bits(1, 1)
			w.bits(2, 2)
			w.bits(0, 5)
			w.bits(0, 5)
			w.bits(0, 4)
			w.bits(2, 3) // symbol 16: length 2, others 0: incomplete
			w.bits(0, 9)
			w.bits(0, 32)
			return w.bytes()
		}(), nil), "code length code"},
		{"second member distance into first", append(stdGzip(t, []byte("abcdef"), 6),
			gz(fixed(func(h *huffWriter) { h.match(3, 3); h.eob() }), nil)...), "too far back"},
		{"truncated second member", append(append([]byte{}, valid...), valid[:30]...), "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			std, stdErr := stdDecode(c.src, 1<<30)
			_, err := Decode([]byte("pre"), c.src, 1<<30)
			if err == nil {
				t.Fatalf("Decode succeeded, want error mentioning %q", c.msg)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %v does not wrap ErrCorrupt", err)
			}
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(c.src) {
				t.Errorf("error %v: not *Error with an offset within the input", err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
			if stdErr == nil && c.msg != "reserved" {
				t.Errorf("compress/gzip accepted it (%d bytes)", len(std))
			}
		})
	}
}

// ---- differential tests ----

// testInputs returns varied data: random bytes, text-like data with
// repetitions, runs, and CSV-like lines.
func testInputs(r *rand.Rand) [][]byte {
	var ins [][]byte
	for _, n := range []int{0, 1, 2, 5, 100, 1000, 40000} {
		b := make([]byte, n)
		r.Read(b)
		ins = append(ins, b)
		t := make([]byte, n)
		for i := range t {
			switch {
			case i > 20 && r.Intn(3) == 0:
				t[i] = t[i-1-r.Intn(20)]
			case i > 300 && r.Intn(50) == 0:
				t[i] = t[i-1-r.Intn(300)]
			default:
				t[i] = "abcdefgh ,\n01"[r.Intn(13)]
			}
		}
		ins = append(ins, t)
	}
	ins = append(ins, bytes.Repeat([]byte{0}, 40000))
	var csv bytes.Buffer
	for i := 0; csv.Len() < 60000; i++ {
		csv.WriteString(itoa(r.Intn(1000000)) + ",," + itoa(i) + ",3,user" + itoa(r.Intn(50)) + ",0,job" + itoa(r.Intn(1000)) + "\n")
	}
	ins = append(ins, csv.Bytes())
	return ins
}

func checkAgainstStd(t testing.TB, src []byte, limit int) {
	t.Helper()
	std, stdErr := stdDecode(src, int64(limit)+1)
	// Decode after a prefix, which must be preserved and must not be
	// reachable by back-references.
	got, err := Decode([]byte("prefix"), src, limit)
	if err == nil {
		if !bytes.HasPrefix(got, []byte("prefix")) {
			t.Fatalf("prefix not preserved")
		}
		got = got[len("prefix"):]
	}
	switch {
	case stdErr == nil && len(std) > limit:
		if err == nil {
			t.Fatalf("Decode returned %d bytes beyond limit %d", len(got), limit)
		}
	case stdErr == nil:
		if err != nil {
			if strings.Contains(err.Error(), "reserved gzip header flag") {
				return // deliberate difference: RFC 1952 requires rejecting reserved bits
			}
			t.Fatalf("compress/gzip succeeded (%d bytes), Decode failed: %v", len(std), err)
		}
		if !bytes.Equal(got, std) {
			t.Fatalf("output differs from compress/gzip: %d vs %d bytes", len(got), len(std))
		}
	default:
		if err == nil {
			t.Fatalf("compress/gzip failed (%v), Decode succeeded with %d bytes", stdErr, len(got))
		}
		if errors.Is(stdErr, stdgzip.ErrChecksum) && len(std) <= limit {
			// compress/gzip decoded everything up to a bad trailer; without
			// verification we must produce the same bytes (and maybe more,
			// from later members).
			nv, nvErr := decode(nil, src, limit, false)
			if !bytes.HasPrefix(nv, std) && !strings.Contains(fmt.Sprint(nvErr), "reserved gzip header flag") {
				t.Fatalf("unverified output (%d bytes, %v) does not extend compress/gzip's (%d bytes) before its checksum error; input %q", len(nv), nvErr, len(std), src)
			}
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
	}
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	inputs := testInputs(r)
	var streams [][]byte
	for _, in := range inputs {
		for level := -2; level <= 9; level++ {
			if level == -1 {
				continue // same as 6
			}
			var b bytes.Buffer
			w, _ := stdgzip.NewWriterLevel(&b, level)
			w.Write(in)
			w.Close()
			streams = append(streams, b.Bytes())
			want := in
			got, err := Decode(nil, b.Bytes(), 1<<30)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("stdlib level %d, %d bytes: err=%v equal=%v", level, len(in), err, bytes.Equal(got, want))
			}
		}
		for _, level := range []int{-3, -2, 0, 1, 2, 4, 5, 6, 7, 9} {
			var b bytes.Buffer
			w, err := kgzip.NewWriterLevel(&b, level)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(in)
			w.Close()
			streams = append(streams, b.Bytes())
			got, err := Decode(nil, b.Bytes(), 1<<30)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("klauspost level %d, %d bytes: err=%v equal=%v", level, len(in), err, bytes.Equal(got, in))
			}
		}
	}
	// Concatenations.
	for i := 0; i+1 < len(streams); i += 7 {
		cat := append(append([]byte{}, streams[i]...), streams[i+1]...)
		checkAgainstStd(t, cat, 1<<30)
	}
	// Mutations: flip/replace bytes, truncate, insert. Small streams only
	// (keeps -race fast), but many of them.
	mutations := 0
	for _, s := range streams {
		if len(s) > 4000 {
			continue
		}
		for k := 0; k < 80; k++ {
			m := mutate(r, s)
			checkAgainstStd(t, m, 1<<22)
			mutations++
		}
	}
	t.Logf("%d streams, %d mutations", len(streams), mutations)
}

func mutate(r *rand.Rand, s []byte) []byte {
	m := append([]byte{}, s...)
	if len(m) == 0 {
		return append(m, byte(r.Intn(256)))
	}
	switch r.Intn(6) {
	case 0:
		return m[:r.Intn(len(m)+1)]
	case 1:
		i := r.Intn(len(m) + 1)
		return append(m[:i], append([]byte{byte(r.Intn(256))}, s[i:]...)...)
	default:
		for n := 1 + r.Intn(3); n > 0; n-- {
			i := r.Intn(len(m))
			if r.Intn(2) == 0 {
				m[i] ^= 1 << r.Intn(8)
			} else {
				m[i] = byte(r.Intn(256))
			}
		}
		return m
	}
}

func TestTooLarge(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 100000)
	for _, level := range []int{0, 1, 9} {
		src := stdGzip(t, data, level)
		for _, limit := range []int{0, 1, 1000, len(data) - 1} {
			if _, err := Decode(nil, src, limit); !errors.Is(err, ErrTooLarge) {
				t.Errorf("level %d limit %d: got %v, want ErrTooLarge", level, limit, err)
			}
		}
		// Multi-member: the limit counts all members.
		two := append(append([]byte{}, src...), src...)
		if _, err := Decode(nil, two, 2*len(data)-1); !errors.Is(err, ErrTooLarge) {
			t.Errorf("two members: got %v, want ErrTooLarge", err)
		}
		if got, err := Decode(nil, two, 2*len(data)); err != nil || len(got) != 2*len(data) {
			t.Errorf("two members at exact limit: %v", err)
		}
	}
	// A lying ISIZE must not cause a huge allocation or a wrong result.
	src := stdGzip(t, []byte("tiny"), 6)
	src[len(src)-1] = 0x7f
	if _, err := Decode(nil, src, 1<<40); !errors.Is(err, ErrCorrupt) {
		t.Errorf("lying ISIZE: got %v", err)
	}
}

// TestRealData decodes a few google2011 job_events parts and compares with
// compress/gzip.
func TestRealData(t *testing.T) {
	parts := loadJobEvents(t, 3)
	for i, p := range parts {
		want, err := stdDecode(p, 1<<40)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(nil, p, 1<<30)
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("part %d: output differs", i)
		}
	}
}

// FuzzDecode checks Decode against compress/gzip on arbitrary input.
func FuzzDecode(f *testing.F) {
	for _, v := range knownVectors(f) {
		if len(v.src) < 2000 {
			f.Add(v.src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkAgainstStd(t, src, 1<<20)
	})
}

// TestSingleAllocation checks that a single-member file is decoded with one
// output allocation sized from ISIZE (and none when dst has room).
func TestSingleAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	data := bytes.Repeat([]byte("0123456789,abc,def\n"), 20000)
	src := stdGzip(t, data, 6)
	Decode(nil, src, 1<<30) // warm the decoder pool
	if n := testing.AllocsPerRun(20, func() {
		out, _ := Decode(nil, src, 1<<30)
		if len(out) != len(data) || cap(out) != len(data) {
			t.Fatalf("len %d cap %d, want %d", len(out), cap(out), len(data))
		}
	}); n > 1 {
		t.Errorf("%v allocations per Decode into nil, want 1", n)
	}
	buf := make([]byte, 0, len(data))
	if n := testing.AllocsPerRun(20, func() { buf, _ = Decode(buf[:0], src, 1<<30) }); n > 0 {
		t.Errorf("%v allocations per Decode into a big enough buffer, want 0", n)
	}
}
