// Package inflate decompresses whole gzip files (RFC 1952 members of RFC 1951
// DEFLATE data) held in memory, into one output buffer.
//
// It is a speed-oriented replacement for compress/gzip when the whole
// compressed file is in memory and the whole output fits in memory: the output
// is one flat slice, so back-references copy within that slice (there is no
// sliding window and no copy-out), the bit reader refills 64 bits with a single
// 8-byte load, and Huffman codes are decoded with packed lookup tables.
//
// Acceptance mirrors compress/gzip + compress/flate (see the doc of Decode for
// the few deliberate differences).
package inflate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"sync"
)

// ErrTooLarge is returned when the output would exceed the caller's limit.
var ErrTooLarge = errors.New("inflate: decompressed output exceeds limit")

// ErrCorrupt is wrapped by every *Error: errors.Is(err, ErrCorrupt) reports
// whether the input was malformed.
var ErrCorrupt = errors.New("inflate: corrupt gzip input")

// Error describes malformed input: what is wrong and at which byte offset of
// the compressed input it was detected.
type Error struct {
	Offset int    // byte offset in src where the problem was detected
	Msg    string // what is wrong
}

func (e *Error) Error() string {
	return fmt.Sprintf("inflate: %s (at compressed byte offset %d)", e.Msg, e.Offset)
}

// Unwrap returns ErrCorrupt.
func (e *Error) Unwrap() error { return ErrCorrupt }

func corrupt(off int, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// Decode appends the decompressed content of the gzip data src (one or more
// members, as gzip -c a b produces) to dst and returns the extended slice. It
// verifies each member's CRC-32 and ISIZE. If the output would grow beyond
// limit bytes in total (len of appended output), it returns ErrTooLarge (the
// caller then falls back to a streaming decoder). On malformed input it
// returns an error (type *Error, wrapping ErrCorrupt) saying what is wrong and
// at which compressed byte offset; it never panics, whatever src is. On error
// the returned slice is dst (its spare capacity may have been overwritten).
// src must not overlap the spare capacity of dst.
//
// Acceptance is that of compress/gzip (multistream mode) with these
// deliberate differences:
//   - a header with any reserved FLG bit (0xe0) set is rejected, as RFC 1952
//     section 2.3.1.2 requires; compress/gzip ignores those bits.
//
// Like compress/gzip, it rejects any bytes after the last member (including
// zero padding), empty input, and FNAME/FCOMMENT fields of 512 bytes or more
// (including the NUL).
func Decode(dst, src []byte, limit int) ([]byte, error) {
	out, err := decode(dst, src, limit, true)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// decode is Decode with optional CRC-32/ISIZE verification; on error it
// returns the output decoded so far (at least all completed blocks). Tests use
// verify=false to compare output with compress/gzip on streams whose only
// fault is a checksum.
func decode(dst, src []byte, limit int, verify bool) ([]byte, error) {
	if limit < 0 {
		limit = 0
	}
	d := decoderPool.Get().(*decoder)
	d.verify = verify
	out, err := d.decodeAll(dst, src, limit)
	d.src, d.out = nil, nil
	decoderPool.Put(d)
	return out, err
}

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

const (
	litBits  = 11 // primary lit/len table index bits
	distBits = 9  // primary distance table index bits
	clBits   = 7  // code length code table bits (max code length 7: no subtables)

	// Subtables hold codes longer than the primary index. Each long code
	// prefix gets at most 2^(15-primary) entries, and there are at most as
	// many prefixes as symbols, which bounds the space needed.
	litTableSize  = 1<<litBits + 288<<(15-litBits)
	distTableSize = 1<<distBits + 32<<(15-distBits)

	// fastOutMargin is the free output space the fast loop needs for one
	// iteration: up to 3 literals, or 2 literals plus a 258-byte match whose
	// 8-byte chunked copy may write up to 7 bytes past its end.
	fastOutMargin = 2 + 258 + 8
	// fastInMargin: the fast loop does up to two 8-byte loads per iteration.
	fastInMargin = 16
)

// Lit/len table entry layout (uint32):
//
//	bits 0-7   number of bits to consume: code length + extra bits
//	           (for a subtable pointer: litBits)
//	bits 8-15  code length (extra bits start above it); for a subtable
//	           pointer, the subtable's index bits
//	bits 16-28 literal byte, length base, or subtable offset
//	bit  29    subtable pointer
//	bit  30    length symbol
//	bit  31    literal (so int32(e) < 0 tests for it)
//
// An entry with no flag bits is end-of-block if bits 0-7 are non-zero and an
// invalid code (hole of an incomplete code, or symbol 286/287) if it is zero.
const (
	litFlagSub = 1 << 29
	litFlagLen = 1 << 30
	litFlagLit = 1 << 31

	eobMarker = 1 << 28 // template of symbol 256, never stored in a table
)

// Distance table entry layout (uint32):
//
//	bits 0-7   bits to consume (code length + extra), or distBits for a pointer
//	bits 8-11  code length, or subtable index bits for a pointer
//	bits 12-27 distance base, or subtable offset
//	bit  30    valid (zero entries are invalid codes: holes, symbols 30/31)
//	bit  31    subtable pointer
//
// The code length code table uses the same layout with the symbol as base.
const (
	distFlagValid = 1 << 30
	distFlagSub   = 1 << 31
)

var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder     = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// Per-symbol entry templates: flags and value, with the extra bit count in
// bits 0-7. The table builder adds the code length. A zero template marks a
// symbol that is invalid to decode.
var (
	litTemplate  [288]uint32
	distTemplate [32]uint32
	clTemplate   [19]uint32
)

// Fixed Huffman tables (RFC 1951 3.2.6), built once.
var (
	fixedOnce sync.Once
	fixedLit  [litTableSize]uint32
	fixedDist [distTableSize]uint32
)

func init() {
	for i := 0; i < 256; i++ {
		litTemplate[i] = litFlagLit | uint32(i)<<16
	}
	litTemplate[256] = eobMarker
	for i := 0; i < 29; i++ {
		litTemplate[257+i] = litFlagLen | uint32(lengthBase[i])<<16 | uint32(lengthExtra[i])
	}
	for i := 0; i < 30; i++ {
		distTemplate[i] = distFlagValid | uint32(distBase[i])<<12 | uint32(distExtra[i])
	}
	for i := range clTemplate {
		clTemplate[i] = distFlagValid | uint32(i)<<12
	}
}

func buildFixed() {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	if !buildLit(fixedLit[:], lens[:]) {
		panic("inflate: bad fixed lit/len code")
	}
	for i := range lens[:32] {
		lens[i] = 5
	}
	if !buildDist(fixedDist[:], lens[:32], distTemplate[:], distBits) {
		panic("inflate: bad fixed distance code")
	}
}

// checkLengths counts code lengths and checks the code is usable, with the
// acceptance rules of compress/flate: over-subscribed codes are rejected;
// incomplete codes are rejected except a single code of length 1 (zlib
// compatibility) and the empty code (all lengths zero), whose missing codes
// fail only if they are decoded. It reports ok and whether the code is
// complete.
func checkLengths(lens []uint8, count *[16]int) (ok, complete bool) {
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	left := 1 // unassigned codes at the current length
	maxLen := 0
	for l := 1; l <= 15; l++ {
		left <<= 1
		left -= count[l]
		if left < 0 {
			return false, false // over-subscribed
		}
		if count[l] != 0 {
			maxLen = l
		}
	}
	if left == 0 {
		return true, true
	}
	if maxLen == 0 {
		return true, false // empty
	}
	if maxLen == 1 && count[1] == 1 {
		return true, false // single 1-bit code
	}
	return false, false // incomplete
}

// build fills table (primary of 1<<tbits entries followed by subtables) for the
// code lengths lens, with per-symbol templates tmpl. entry combines a
// template with the code length (see the entry layouts); sub makes a
// subtable pointer entry. It returns false if the code is not acceptable.
func build(table []uint32, lens []uint8, tmpl []uint32, tbits uint,
	entry func(t uint32, l uint) uint32, sub func(off, bits uint) uint32) bool {
	var count [16]int
	ok, complete := checkLengths(lens, &count)
	if !ok {
		return false
	}
	psize := 1 << tbits
	primary := table[:psize]
	if !complete {
		clear(primary)
	}
	// First code of each length (canonical Huffman, RFC 1951 3.2.2).
	var next [16]uint
	code := uint(0)
	for l := 1; l <= 15; l++ {
		code = (code + uint(count[l-1])) << 1
		next[l] = code
	}
	// For long codes: the longest code length under each primary prefix,
	// to size the subtables.
	var subLen [1 << litBits]uint8
	anyLong := false
	{
		nx := next
		for _, l := range lens {
			if uint(l) <= tbits {
				continue
			}
			c := nx[l]
			nx[l]++
			r := reverse(c, uint(l))
			p := r & uint(psize-1)
			if l > subLen[p] {
				subLen[p] = l
			}
			anyLong = true
		}
	}
	var subOff [1 << litBits]uint16
	if anyLong {
		off := psize
		for p := 0; p < psize; p++ {
			if subLen[p] != 0 {
				b := uint(subLen[p]) - tbits
				if off+1<<b > len(table) {
					return false // cannot happen for valid lengths; be safe
				}
				subOff[p] = uint16(off)
				primary[p] = sub(uint(off), b)
				off += 1 << b
			}
		}
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		r := reverse(c, uint(l))
		if uint(l) <= tbits {
			e := entry(tmpl[s], uint(l))
			for i := r; i < uint(psize); i += 1 << l {
				primary[i] = e
			}
			continue
		}
		p := r & uint(psize-1)
		b := uint(subLen[p]) - tbits
		rl := uint(l) - tbits
		e := entry(tmpl[s], rl)
		st := table[subOff[p] : uint(subOff[p])+1<<b]
		for i := r >> tbits; i < uint(len(st)); i += 1 << rl {
			st[i] = e
		}
	}
	return true
}

// reverse returns the n low bits of c in reverse order (Huffman codes are
// packed starting with their most significant bit).
func reverse(c, n uint) uint {
	return uint(bits.Reverse16(uint16(c))) >> (16 - n)
}

func buildLit(table []uint32, lens []uint8) bool {
	return build(table, lens, litTemplate[:], litBits,
		func(t uint32, l uint) uint32 {
			if t == 0 {
				return 0 // invalid symbol (286/287)
			}
			if t == eobMarker {
				return uint32(l)<<8 | uint32(l) // no flags, non-zero length
			}
			extra := t & 0xff
			return t&^0xff | uint32(l)<<8 | (uint32(l) + extra)
		}, func(off, b uint) uint32 {
			return litFlagSub | uint32(off)<<16 | uint32(b)<<8 | litBits
		})
}

func buildDist(table []uint32, lens []uint8, tmpl []uint32, tbits uint) bool {
	return build(table, lens, tmpl, tbits,
		func(t uint32, l uint) uint32 {
			if t == 0 {
				return 0
			}
			extra := t & 0xff
			return t&^0xfff | uint32(l)<<8 | (uint32(l) + extra)
		}, func(off, b uint) uint32 {
			return distFlagSub | uint32(off)<<12 | uint32(b)<<8 | uint32(tbits)
		})
}

// decoder holds the state of one Decode call. Tables are large, so decoders
// are pooled.
type decoder struct {
	src    []byte
	ip     int    // next src byte to load into bits
	bits   uint64 // bit buffer, LSB first; bits above nbits are either zero or the next input bits
	nbits  uint   // number of valid bits in bits
	out    []byte // output; out[:op] is decoded, the rest is scratch space
	op     int
	start  int  // len(dst): output before this is not ours
	max    int  // start+limit
	mstart int  // start of the current member's output (distance limit)
	verify bool // check CRC-32 and ISIZE (always, except in tests)

	lit  [litTableSize]uint32
	dist [distTableSize]uint32
	cl   [1 << clBits]uint32
	lens [288 + 32]uint8
}

// pos returns the byte offset of the next unconsumed input bit.
func (d *decoder) pos() int { return d.ip - int(d.nbits>>3) }

func (d *decoder) decodeAll(dst, src []byte, limit int) ([]byte, error) {
	d.src = src
	d.start = len(dst)
	d.max = len(dst) + limit
	if d.max < d.start { // overflow
		d.max = int(^uint(0) >> 1)
	}
	// Size the output: the last member's ISIZE is the whole size for a
	// single-member file; cap by the limit and by the maximum DEFLATE ratio.
	guess := 0
	if n := len(src); n >= 18 {
		guess = int(binary.LittleEndian.Uint32(src[n-4:]))
		if m := n * 1032; guess > m {
			guess = m
		}
	}
	if guess > limit {
		guess = limit
	}
	if cap(dst)-len(dst) < guess {
		nd := make([]byte, len(dst), len(dst)+guess)
		copy(nd, dst)
		dst = nd
	}
	d.out = dst[:cap(dst)]
	d.op = len(dst)

	p := 0
	for member := 0; ; member++ {
		var err error
		if p, err = d.header(p); err != nil {
			return d.out[:d.op], err
		}
		d.mstart = d.op
		d.ip, d.bits, d.nbits = p, 0, 0
		if err := d.inflate(); err != nil {
			return d.out[:d.op], err
		}
		p = d.pos()
		if len(src)-p < 8 {
			return d.out[:d.op], corrupt(len(src), "truncated gzip trailer")
		}
		crc := binary.LittleEndian.Uint32(src[p:])
		size := binary.LittleEndian.Uint32(src[p+4:])
		got := d.out[d.mstart:d.op]
		if c := crc32.ChecksumIEEE(got); c != crc && d.verify {
			return d.out[:d.op], corrupt(p, "CRC-32 mismatch: trailer says %08x, data has %08x", crc, c)
		}
		if uint32(len(got)) != size && d.verify {
			return d.out[:d.op], corrupt(p+4, "ISIZE mismatch: trailer says %d, data has %d bytes", size, uint32(len(got)))
		}
		p += 8
		if p == len(src) {
			return d.out[:d.op], nil
		}
	}
}

// header parses a gzip member header at src[p:] and returns the offset of the
// DEFLATE data.
func (d *decoder) header(p int) (int, error) {
	src := d.src
	if len(src)-p < 10 {
		if p == 0 && len(src) == 0 {
			return 0, corrupt(0, "empty input")
		}
		return 0, corrupt(len(src), "truncated gzip header")
	}
	h := src[p : p+10]
	if h[0] != 0x1f || h[1] != 0x8b {
		if p > 0 {
			return 0, corrupt(p, "trailing garbage after gzip member (bad magic %02x %02x)", h[0], h[1])
		}
		return 0, corrupt(p, "not gzip data (bad magic %02x %02x)", h[0], h[1])
	}
	if h[2] != 8 {
		return 0, corrupt(p+2, "unsupported gzip compression method %d", h[2])
	}
	flg := h[3]
	if flg&0xe0 != 0 {
		return 0, corrupt(p+3, "reserved gzip header flag bits set (FLG=%#02x)", flg)
	}
	q := p + 10
	if flg&0x04 != 0 { // FEXTRA
		if len(src)-q < 2 {
			return 0, corrupt(len(src), "truncated gzip FEXTRA length")
		}
		n := int(binary.LittleEndian.Uint16(src[q:]))
		q += 2
		if len(src)-q < n {
			return 0, corrupt(len(src), "truncated gzip FEXTRA field")
		}
		q += n
	}
	for _, f := range [2]struct {
		bit  byte
		name string
	}{{0x08, "FNAME"}, {0x10, "FCOMMENT"}} {
		if flg&f.bit == 0 {
			continue
		}
		i := q
		for ; i < len(src) && src[i] != 0; i++ {
			if i-q >= 511 {
				// compress/gzip reads these into a 512-byte buffer.
				return 0, corrupt(i, "gzip %s field too long (512 bytes or more)", f.name)
			}
		}
		if i >= len(src) {
			return 0, corrupt(len(src), "truncated gzip %s field", f.name)
		}
		q = i + 1
	}
	if flg&0x02 != 0 { // FHCRC
		if len(src)-q < 2 {
			return 0, corrupt(len(src), "truncated gzip header CRC")
		}
		want := binary.LittleEndian.Uint16(src[q:])
		if got := uint16(crc32.ChecksumIEEE(src[p:q])); got != want {
			return 0, corrupt(q, "gzip header CRC mismatch: field says %04x, header has %04x", want, got)
		}
		q += 2
	}
	return q, nil
}

// refill tops up the bit buffer to at least 56 bits. Near the end of the
// input it loads byte by byte and, past the end, pads with zero bytes; the
// callers detect consumption of padding through overrun.
func (d *decoder) refill() {
	if d.ip <= len(d.src)-8 {
		d.bits |= binary.LittleEndian.Uint64(d.src[d.ip:]) << d.nbits
		d.ip += int((63 - d.nbits) >> 3)
		d.nbits |= 56
		return
	}
	for d.nbits <= 56 {
		if d.ip < len(d.src) {
			d.bits |= uint64(d.src[d.ip]) << d.nbits
		}
		d.ip++
		d.nbits += 8
	}
}

// overrun reports whether more bits were consumed than the input has.
func (d *decoder) overrun() bool {
	return d.ip*8-int(d.nbits) > len(d.src)*8
}

func (d *decoder) take(n uint) uint32 {
	v := uint32(d.bits & (1<<n - 1))
	d.bits >>= n
	d.nbits -= n
	return v
}

// inflate decodes one DEFLATE stream starting at d.ip (bit buffer empty).
func (d *decoder) inflate() error {
	for {
		d.refill()
		blockStart := d.pos()
		final := d.take(1)
		typ := d.take(2)
		var err error
		switch typ {
		case 0:
			err = d.stored()
		case 1:
			fixedOnce.Do(buildFixed)
			err = d.huffman(&fixedLit, &fixedDist)
		case 2:
			if err = d.dynamicHeader(); err == nil {
				err = d.huffman(&d.lit, &d.dist)
			}
		default:
			err = corrupt(blockStart, "invalid DEFLATE block type 3")
		}
		if err != nil {
			return err
		}
		if d.overrun() {
			return corrupt(len(d.src), "truncated DEFLATE data")
		}
		if final == 1 {
			// Drop the bits up to the byte boundary.
			d.take(d.nbits & 7)
			return nil
		}
	}
}

func (d *decoder) stored() error {
	d.take(d.nbits & 7)
	p := d.pos()
	if d.overrun() || len(d.src)-p < 4 {
		return corrupt(len(d.src), "truncated stored block header")
	}
	n := int(binary.LittleEndian.Uint16(d.src[p:]))
	nn := int(binary.LittleEndian.Uint16(d.src[p+2:]))
	if n != nn^0xffff {
		return corrupt(p, "stored block LEN %d does not match NLEN %d", n, nn)
	}
	p += 4
	if len(d.src)-p < n {
		return corrupt(len(d.src), "truncated stored block (LEN %d, %d bytes left)", n, len(d.src)-p)
	}
	if err := d.ensure(n); err != nil {
		return err
	}
	d.op += copy(d.out[d.op:], d.src[p:p+n])
	d.ip, d.bits, d.nbits = p+n, 0, 0
	return nil
}

// ensure makes room for n more output bytes, growing the output
// geometrically up to the limit.
func (d *decoder) ensure(n int) error {
	if len(d.out)-d.op >= n {
		return nil
	}
	if d.max-d.op < n {
		return ErrTooLarge
	}
	newLen := 2 * len(d.out)
	if newLen < d.op+n {
		newLen = d.op + n
	}
	if newLen < 4096 {
		newLen = 4096
	}
	if newLen > d.max || newLen < 0 {
		newLen = d.max
	}
	nb := make([]byte, newLen)
	copy(nb, d.out[:d.op])
	d.out = nb
	return nil
}

func (d *decoder) dynamicHeader() error {
	d.refill()
	at := d.pos()
	nlit := int(d.take(5)) + 257
	ndist := int(d.take(5)) + 1
	nclen := int(d.take(4)) + 4
	if nlit > 286 {
		return corrupt(at, "too many lit/len codes (HLIT %d > 286)", nlit)
	}
	if ndist > 30 {
		return corrupt(at, "too many distance codes (HDIST %d > 30)", ndist)
	}
	var cll [19]uint8
	for i := 0; i < nclen; i++ {
		if d.nbits < 3 {
			d.refill()
		}
		cll[clOrder[i]] = uint8(d.take(3))
	}
	if d.overrun() {
		return corrupt(len(d.src), "truncated dynamic block header")
	}
	if !buildDist(d.cl[:], cll[:], clTemplate[:], clBits) {
		return corrupt(d.pos(), "invalid code length code (over-subscribed or incomplete)")
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if d.nbits < 16 {
			d.refill()
			if d.overrun() {
				return corrupt(len(d.src), "truncated dynamic block header")
			}
		}
		e := d.cl[d.bits&(1<<clBits-1)]
		if e&distFlagValid == 0 {
			return corrupt(d.pos(), "invalid code length code")
		}
		d.take(uint(e & 0xff))
		sym := e >> 12 & 0xffff
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return corrupt(d.pos(), "code length repeat (16) with no previous length")
			}
			v = lens[i-1]
			rep = 3 + int(d.take(2))
		case 17:
			rep = 3 + int(d.take(3))
		default:
			rep = 11 + int(d.take(7))
		}
		if i+rep > len(lens) {
			return corrupt(d.pos(), "code length repeat overflows %d lengths", len(lens))
		}
		for j := 0; j < rep; j++ {
			lens[i+j] = v
		}
		i += rep
	}
	if d.overrun() {
		return corrupt(len(d.src), "truncated dynamic block header")
	}
	if !buildLit(d.lit[:], lens[:nlit]) {
		return corrupt(d.pos(), "invalid lit/len code (over-subscribed or incomplete)")
	}
	if !buildDist(d.dist[:], lens[nlit:], distTemplate[:], distBits) {
		return corrupt(d.pos(), "invalid distance code (over-subscribed or incomplete)")
	}
	return nil
}
