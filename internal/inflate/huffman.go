package inflate

import "encoding/binary"

// huffman decodes the data of one Huffman-coded block (fixed or dynamic) with
// the lit/len table lt and distance table dt, up to and including its
// end-of-block code.
//
// The hot state lives in locals. The fast loop runs while at least
// fastInMargin input bytes remain (so refills are single unaligned 8-byte
// loads with no end checks) and fastOutMargin bytes of output space remain (so
// literal stores and chunked match copies need no space checks). Everything
// else goes through the slow path one symbol at a time, which handles the end
// of input (zero padding plus overrun detection) and output growth.
//
// Inside the fast loop only the low 6 bits of nbits are meaningful: it is
// decremented by whole table entries (whose low byte is the bit count), which
// saves a zero-extension per symbol; it is masked with 63 where used and
// normalized when leaving the loop.
func (d *decoder) huffman(lt *[litTableSize]uint32, dt *[distTableSize]uint32) error {
	src := d.src
	out := d.out
	ip, op := d.ip, d.op
	bits, nbits := d.bits, d.nbits
	mstart := d.mstart

	for {
		if ip <= len(src)-fastInMargin && op <= len(out)-fastOutMargin {
			bits |= binary.LittleEndian.Uint64(src[ip:]) << (nbits & 63)
			ip += int((^nbits & 63) >> 3)
			nbits |= 56
			// e is always the primary entry for the next code, looked up
			// as early as possible (with at least litBits valid bits) so
			// the load overlaps other work; refills only add bits above
			// nbits, so they do not change it.
			e := lt[bits&(1<<litBits-1)]
			for {
				if int32(e) < 0 {
					// Up to three literals per refill (primary-table
					// codes are <= 11 bits: 3*11 <= 56-11, leaving enough
					// for the next lookup).
					bits >>= e & 63
					nbits -= uint(e)
					out[op] = byte(e >> 16)
					op++
					e = lt[bits&(1<<litBits-1)]
					if int32(e) < 0 {
						bits >>= e & 63
						nbits -= uint(e)
						out[op] = byte(e >> 16)
						op++
						e = lt[bits&(1<<litBits-1)]
						if int32(e) < 0 {
							bits >>= e & 63
							nbits -= uint(e)
							out[op] = byte(e >> 16)
							op++
							e = lt[bits&(1<<litBits-1)]
							goto next
						}
					}
				}
				// At least 56-2*15 = 26 bits remain: enough for a 15-bit
				// length code with 5 extra bits.
				if e&litFlagLen == 0 {
					if e&litFlagSub != 0 {
						bits >>= litBits
						nbits -= litBits
						e = lt[(e>>16&0x1fff)+uint32(bits&(uint64(1)<<(e>>8&63)-1))]
						if int32(e) < 0 {
							bits >>= e & 63
							nbits -= uint(e)
							out[op] = byte(e >> 16)
							op++
							e = lt[bits&(1<<litBits-1)]
							goto next
						}
					}
					if e&litFlagLen == 0 {
						if e&0xff == 0 {
							return corrupt(ip-int(nbits&63>>3), "invalid lit/len code")
						}
						bits >>= e & 63
						nbits -= uint(e)
						goto done
					}
				}
				{
					// Length: base plus extra bits, which sit above the code.
					saved := bits
					bits >>= e & 63
					nbits -= uint(e)
					length := int(e>>16&0x1fff) + int((saved&(uint64(1)<<(e&63)-1))>>(e>>8&63))

					// Second refill for the distance (up to 15+13 bits).
					bits |= binary.LittleEndian.Uint64(src[ip:]) << (nbits & 63)
					ip += int((^nbits & 63) >> 3)
					nbits |= 56

					e = dt[bits&(1<<distBits-1)]
					if e&(distFlagSub|distFlagValid) != distFlagValid {
						if e&distFlagSub != 0 {
							bits >>= distBits
							nbits -= distBits
							e = dt[(e>>12&0xffff)+uint32(bits&(uint64(1)<<(e>>8&15)-1))]
						}
						if e&distFlagValid == 0 {
							return corrupt(ip-int(nbits&63>>3), "invalid distance code")
						}
					}
					saved = bits
					bits >>= e & 63
					nbits -= uint(e)
					dist := int(e>>12&0xffff) + int((saved&(uint64(1)<<(e&63)-1))>>(e>>8&15))
					// >= 28 bits remain: preload the next entry.
					e = lt[bits&(1<<litBits-1)]
					if dist > op-mstart {
						return corrupt(ip-int(nbits&63>>3), "distance %d too far back (only %d bytes of output)", dist, op-mstart)
					}
					s := op - dist
					if dist >= 8 {
						// 8 bytes at a time: each chunk reads bytes at least 8
						// behind, which are already final. May write up to 7
						// bytes past the match; the margin allows it.
						binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[s:]))
						for n := 8; n < length; n += 8 {
							binary.LittleEndian.PutUint64(out[op+n:], binary.LittleEndian.Uint64(out[s+n:]))
						}
					} else if dist == 1 {
						v := uint64(out[s]) * 0x0101010101010101
						for n := 0; n < length; n += 8 {
							binary.LittleEndian.PutUint64(out[op+n:], v)
						}
					} else {
						for n := 0; n < length; n++ {
							out[op+n] = out[s+n]
						}
					}
					op += length
				}
			next:
				if ip > len(src)-fastInMargin || op > len(out)-fastOutMargin {
					nbits &= 63
					break
				}
				bits |= binary.LittleEndian.Uint64(src[ip:]) << (nbits & 63)
				ip += int((^nbits & 63) >> 3)
				nbits |= 56
			}
		}

		// Slow path: one symbol with full checks.
		if ip <= len(src)-8 {
			bits |= binary.LittleEndian.Uint64(src[ip:]) << nbits
			ip += int((63 - nbits) >> 3)
			nbits |= 56
		} else {
			for nbits <= 56 {
				if ip < len(src) {
					bits |= uint64(src[ip]) << nbits
				}
				ip++
				nbits += 8
			}
		}
		if ip*8-int(nbits) > len(src)*8 {
			return corrupt(len(src), "truncated DEFLATE data")
		}
		e := lt[bits&(1<<litBits-1)]
		if e&litFlagSub != 0 {
			bits >>= litBits
			nbits -= litBits
			e = lt[(e>>16&0x1fff)+uint32(bits&(uint64(1)<<(e>>8&63)-1))]
		}
		if int32(e) < 0 {
			bits >>= e & 63
			nbits -= uint(e & 0xff)
			if op >= len(out) {
				d.out, d.op = out, op
				if err := d.ensure(1); err != nil {
					return err
				}
				out = d.out
			}
			out[op] = byte(e >> 16)
			op++
			continue
		}
		if e&litFlagLen == 0 {
			if e&0xff == 0 {
				return corrupt(ip-int(nbits>>3), "invalid lit/len code")
			}
			bits >>= e & 63
			nbits -= uint(e & 0xff)
			goto done
		}
		saved := bits
		bits >>= e & 63
		nbits -= uint(e & 0xff)
		length := int(e>>16&0x1fff) + int((saved&(uint64(1)<<(e&63)-1))>>(e>>8&63))
		for nbits <= 56 {
			if ip < len(src) {
				bits |= uint64(src[ip]) << nbits
			}
			ip++
			nbits += 8
		}
		e = dt[bits&(1<<distBits-1)]
		if e&distFlagSub != 0 {
			bits >>= distBits
			nbits -= distBits
			e = dt[(e>>12&0xffff)+uint32(bits&(uint64(1)<<(e>>8&15)-1))]
		}
		if e&distFlagValid == 0 {
			return corrupt(ip-int(nbits>>3), "invalid distance code")
		}
		saved = bits
		bits >>= e & 63
		nbits -= uint(e & 0xff)
		if ip*8-int(nbits) > len(src)*8 {
			return corrupt(len(src), "truncated DEFLATE data")
		}
		dist := int(e>>12&0xffff) + int((saved&(uint64(1)<<(e&63)-1))>>(e>>8&15))
		if dist > op-mstart {
			return corrupt(ip-int(nbits>>3), "distance %d too far back (only %d bytes of output)", dist, op-mstart)
		}
		if len(out)-op < length {
			d.out, d.op = out, op
			if err := d.ensure(length); err != nil {
				return err
			}
			out = d.out
		}
		s := op - dist
		if dist >= length {
			copy(out[op:op+length], out[s:s+length])
		} else {
			for n := 0; n < length; n++ {
				out[op+n] = out[s+n]
			}
		}
		op += length
	}
done:
	nbits &= 63
	d.out, d.op = out, op
	d.ip, d.bits, d.nbits = ip, bits, nbits
	return nil
}
