package canonical

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
)

// Every canonical file carries a CRC-32C of its own bytes, which Open checks before handing the
// file to the Arrow and Parquet libraries: those trust the file's metadata and can crash the
// process (allocating terabytes, or panicking on another goroutine) on a corrupt file, so
// corruption must be caught first.
//
// The checksum is the value of the metadata key KeyChecksum: checksumMarker followed by eight
// hex digits. The CRC covers the whole file with the eight digits after every occurrence of the
// marker taken as "00000000"; the Writer writes that placeholder, computes the CRC and patches the
// digits in place (the IPC format stores the schema, metadata included, twice).

// KeyChecksum is the metadata key holding the file's checksum.
const KeyChecksum = "schedlab.checksum"

const (
	checksumMarker = "schedlab.crc32c.v1:"
	checksumDigits = 8
	placeholder    = "00000000"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// occurrence is a checksum value found in a file.
type occurrence struct {
	off   int64 // file offset of the digits
	value string
}

// scanChecksum computes the file's CRC (with every checksum value taken as the placeholder) and
// lists the checksum values it holds, reading r in chunks.
func scanChecksum(r io.Reader) (uint32, []occurrence, error) {
	const chunk = 1 << 20
	keep := len(checksumMarker) + checksumDigits // bytes a marker and its digits span
	buf := make([]byte, chunk+keep)
	var s checksumScan
	carry := 0
	for {
		n, err := io.ReadFull(r, buf[carry:])
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return 0, nil, err
		}
		data := buf[:carry+n]
		end := s.feed(data, last)
		if last {
			return s.crc, s.found, nil
		}
		carry = copy(buf, data[end:])
	}
}

// scanChecksumBytes is scanChecksum over a file's bytes in memory (a mapping).
func scanChecksumBytes(data []byte) (uint32, []occurrence) {
	var s checksumScan
	s.feed(data, true)
	return s.crc, s.found
}

type checksumScan struct {
	crc   uint32
	found []occurrence
	base  int64 // file offset of the next data fed
}

// feed consumes data up to the returned offset; the rest (which might hold the start of a
// marker) must be fed again in front of the next data, unless last.
//
// It works through the data in cache-sized blocks, looking for markers and then computing the CRC
// of the block while it is still in cache. Markers are found by their last byte, ':', which is
// rarer in the files' contents than the first.
func (s *checksumScan) feed(data []byte, last bool) int {
	keep := len(checksumMarker) + checksumDigits
	limit := len(data) // markers starting before limit lie wholly inside data
	if !last {
		limit = max(len(data)-keep, 0)
	}
	const block = 64 << 10
	colon := len(checksumMarker) - 1 // offset of the marker's ':'
	p := 0                           // data before p is in the CRC
	for b := 0; b < limit; b += block {
		// Markers starting in [b, e): their ':' lies in [b+colon, e+colon).
		e := min(b+block, limit)
		q := max(b, p) + colon
		for q < e+colon && q < len(data) {
			k := bytes.IndexByte(data[q:min(e+colon, len(data))], ':')
			if k < 0 {
				break
			}
			q += k
			m := q - colon // marker start
			if string(data[m:q+1]) != checksumMarker {
				q++
				continue
			}
			v := q + 1
			if v+checksumDigits > len(data) {
				break // a marker cut off by the end of the file
			}
			s.crc = crc32.Update(s.crc, castagnoli, data[p:v])
			s.crc = crc32.Update(s.crc, castagnoli, []byte(placeholder))
			s.found = append(s.found, occurrence{off: s.base + int64(v), value: string(data[v : v+checksumDigits])})
			p = v + checksumDigits
			q = p + colon
		}
		if p < e {
			s.crc = crc32.Update(s.crc, castagnoli, data[p:e])
			p = e
		}
	}
	end := max(p, limit)
	if last {
		end = len(data)
	}
	if p < end {
		s.crc = crc32.Update(s.crc, castagnoli, data[p:end])
	}
	s.base += int64(end)
	return end
}

func hex8(x uint32) string {
	s := strconv.FormatUint(uint64(x), 16)
	for len(s) < checksumDigits {
		s = "0" + s
	}
	return s
}

// sealChecksum fills in the checksum of the finished file f, which must hold exactly want
// placeholders (the ones the Writer put in its metadata).
func sealChecksum(f *os.File, want int) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	crc, found, err := scanChecksum(f)
	if err != nil {
		return err
	}
	if len(found) != want {
		return fmt.Errorf("checksum: %d occurrences of the reserved string %q, want %d (does a name contain it?)", len(found), checksumMarker, want)
	}
	digits := []byte(hex8(crc))
	for _, o := range found {
		if o.value != placeholder {
			return fmt.Errorf("checksum: unexpected value %q at byte %d", o.value, o.off)
		}
		if _, err := f.WriteAt(digits, o.off); err != nil {
			return err
		}
	}
	return nil
}

// errChecksum reports a file whose content does not match its checksum.
var errChecksum = errors.New("checksum mismatch: the file is corrupt")

// verifyChecksum checks a file against its embedded checksum: the file's bytes in memory (a
// mapping) if data is not nil, else read through ra.
//
// The checksum's occurrences are where the Writer put them, in the file's metadata: the Parquet
// footer, or the Arrow IPC file's first message (the schema) and footer. Looking for them there
// (findMarkers) saves scanning the whole file for the marker, leaving only the CRC itself. If
// that does not verify, the whole file is scanned as the Writer scanned it (which finds the same
// occurrences in any file it wrote), and its verdict stands.
func verifyChecksum(data []byte, ra io.ReaderAt) error {
	var (
		crc   uint32
		found []occurrence
	)
	if data != nil {
		if found = findMarkers(data); len(found) > 0 {
			crc = crcWith(data, found)
			if checkOccurrences(crc, found) == nil {
				return nil
			}
		}
		crc, found = scanChecksumBytes(data)
	} else {
		var err error
		crc, found, err = scanChecksum(io.NewSectionReader(ra, 0, 1<<62))
		if err != nil {
			return err
		}
	}
	return checkOccurrences(crc, found)
}

func checkOccurrences(crc uint32, found []occurrence) error {
	if len(found) == 0 {
		return fmt.Errorf("no %s (not written by schedlab, or corrupt)", KeyChecksum)
	}
	want := hex8(crc)
	for _, o := range found {
		if o.value != want {
			return fmt.Errorf("%w (computed %s, stored %q at byte %d)", errChecksum, want, o.value, o.off)
		}
	}
	return nil
}

// findMarkers returns the checksum occurrences in the metadata regions of a Parquet or Arrow IPC
// file (see verifyChecksum), in file order, or none if the regions are not where they should be.
func findMarkers(data []byte) []occurrence {
	var regions [][2]int // [start, end) byte ranges
	n := len(data)
	switch {
	case n >= 12 && string(data[:4]) == "PAR1" && string(data[n-4:]) == "PAR1":
		size := int(binary.LittleEndian.Uint32(data[n-8:]))
		if size > n-12 {
			return nil
		}
		regions = append(regions, [2]int{n - 8 - size, n - 8})
	case n >= 26 && string(data[:6]) == "ARROW1" && string(data[n-6:]) == "ARROW1":
		// The schema message after the 8-byte magic: continuation marker, int32 size, flatbuffer.
		if binary.LittleEndian.Uint32(data[8:]) != 0xFFFFFFFF {
			return nil
		}
		size := int(binary.LittleEndian.Uint32(data[12:]))
		foot := int(binary.LittleEndian.Uint32(data[n-10:]))
		if size > n-26 || foot > n-26 || 16+size > n-10-foot {
			return nil
		}
		regions = append(regions, [2]int{16, 16 + size}, [2]int{n - 10 - foot, n - 10})
	default:
		return nil
	}
	var found []occurrence
	for _, r := range regions {
		for p := r[0]; p < r[1]; {
			k := bytes.Index(data[p:r[1]], []byte(checksumMarker))
			if k < 0 {
				break
			}
			v := p + k + len(checksumMarker)
			if v+checksumDigits > r[1] {
				break
			}
			found = append(found, occurrence{off: int64(v), value: string(data[v : v+checksumDigits])})
			p = v + checksumDigits
		}
	}
	return found
}

// crcWith returns the CRC of data with the digits of every occurrence (in file order, not
// overlapping) taken as the placeholder.
func crcWith(data []byte, found []occurrence) uint32 {
	var crc uint32
	p := 0
	for _, o := range found {
		crc = crc32.Update(crc, castagnoli, data[p:o.off])
		crc = crc32.Update(crc, castagnoli, []byte(placeholder))
		p = int(o.off) + checksumDigits
	}
	return crc32.Update(crc, castagnoli, data[p:])
}
