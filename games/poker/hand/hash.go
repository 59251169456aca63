package hand

import (
	"math/bits"
	"slices"
	"sync"

	"github.com/sabot-tables/sabot/shoe/card"
)

// A hand without a flush is ranked by its ranks alone: which ranks it holds and how many of each.
// There are 6,175 such rank multisets of five cards, 18,395 of six and 49,205 of seven. Each is
// keyed by its counts, three bits per rank (key = Σ count·8^rank, 39 bits), and the key is looked
// up in a collision-free table built on first use ("hash and displace"): the key's bucket
// (one multiply, one shift) gives a displacement that sends every key of the bucket to a slot of
// its own, which holds the hand's rank as an index into the distinct ranks. No key is stored and
// none is compared: only the keys of real hands are ever looked up. The seven-card table takes
// 160 KB (65,536 two-byte slots and 16,384 displacements), the six- and five-card ones 80 KB and
// 20 KB: small enough to stay in the second-level cache, so that random hands cost little more
// than hands in enumeration order. They are built on first use, in a few milliseconds.

// perfectHash is the table for hands of one size.
type perfectHash struct {
	c1, c2                 uint64 // the multipliers of the bucket and the slot
	bucketShift, slotShift uint
	disp                   []uint16
	val                    []uint16
	ranks                  []Rank
}

// The multipliers: odd 64-bit constants (the golden ratio's and splitmix64's); the builder moves
// on to the next pair if one fails, which the tests would show.
var hashConstants = [][2]uint64{
	{0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9},
	{0x94d049bb133111eb, 0xd6e8feb86659fd93},
	{0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53},
}

// spread maps a 13-bit rank set to three bits per rank (bit r to bit 3r), in two halves.
var spreadLo, spreadHi = func() (lo [128]uint64, hi [64]uint64) {
	for x := range 128 {
		for r := range 7 {
			if x&(1<<r) != 0 {
				lo[x] |= 1 << (3 * r)
			}
		}
	}
	for x := range 64 {
		for r := range 6 {
			if x&(1<<r) != 0 {
				hi[x] |= 1 << (3 * (r + 7))
			}
		}
	}
	return lo, hi
}()

func spread(s uint64) uint64 { return spreadLo[s&0x7f] | spreadHi[s>>7&0x3f] }

// keyedCard is a card's Mask bit and its rank's key, read together.
type keyedCard struct {
	bit Mask
	key uint64
}

var keyed = func() (t [256]keyedCard) {
	for _, c := range card.Deck() {
		t[c] = keyedCard{cardBit[c], 1 << (3 * uint(value(c.Rank())-2))}
	}
	return t
}()

// hashes holds the tables for five, six and seven cards, built on first use.
var (
	hashes    [8]*perfectHash
	hashesSet sync.Once
)

// tables builds the tables once; every evaluator calls it first (an atomic load once built).
func tables() *[8]*perfectHash {
	hashesSet.Do(func() {
	sizes:
		for n := 5; n <= 7; n++ {
			for _, k := range hashConstants {
				if hashes[n] = buildHash(n, k[0], k[1]); hashes[n] != nil {
					continue sizes
				}
			}
			panic("hand: no hash constants place every rank multiset") // the tests prove it cannot happen
		}
	})
	return &hashes
}

// multisets calls f with the rank key of every multiset of n ranks (each at most four times) and
// a hand of those ranks without a flush: the cards take the suits in turn, so no suit holds more
// than two of seven and a rank's cards all differ in suit.
func multisets(n int, f func(key uint64, m Mask)) {
	var counts [13]int
	var walk func(r, left int)
	walk = func(r, left int) {
		if r == 13 {
			if left > 0 {
				return
			}
			var m Mask
			var key uint64
			i := 0
			for rk := range 13 {
				for range counts[rk] {
					m |= 1 << (16*uint(i%4) + uint(rk))
					key += 1 << (3 * uint(rk))
					i++
				}
			}
			f(key, m)
			return
		}
		for k := 0; k <= min(4, left); k++ {
			counts[r] = k
			walk(r+1, left-k)
		}
		counts[r] = 0
	}
	walk(0, n)
}

// buildHash builds the table for n cards with the multipliers c1 and c2, or returns nil if they
// fail.
func buildHash(n int, c1, c2 uint64) *perfectHash {
	var keys []uint64
	var ranks []Rank
	multisets(n, func(key uint64, m Mask) {
		keys = append(keys, key)
		ranks = append(ranks, evalBits(m))
	})
	h := &perfectHash{c1: c1, c2: c2}
	slotBits := uint(bits.Len(uint(len(keys)))) // 4/3 to 8/3 slots per key
	bucketBits := max(slotBits-2, 1)            // about three keys a bucket
	h.slotShift, h.bucketShift = 64-slotBits, 64-bucketBits
	h.disp = make([]uint16, 1<<bucketBits)
	h.val = make([]uint16, 1<<slotBits)
	h.ranks = slices.Compact(slices.Sorted(slices.Values(ranks)))
	// The keys by bucket, largest buckets first.
	start := make([]int32, len(h.disp)+1)
	for _, k := range keys {
		start[k*h.c1>>h.bucketShift+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	byBucket := make([]int32, len(keys)) // indexes into keys
	fill := slices.Clone(start)
	for i, k := range keys {
		b := k * h.c1 >> h.bucketShift
		byBucket[fill[b]] = int32(i)
		fill[b]++
	}
	order := make([]int32, len(h.disp))
	for i := range order {
		order[i] = int32(i)
	}
	size := func(b int32) int32 { return start[b+1] - start[b] }
	slices.SortStableFunc(order, func(a, b int32) int { return int(size(b) - size(a)) })
	used := make([]bool, len(h.val))
	mask := uint64(len(h.val) - 1)
	var slots [64]uint64
	for _, b := range order {
		es := byBucket[start[b]:start[b+1]]
		if len(es) == 0 {
			break
		}
		if len(es) > len(slots) {
			return nil
		}
		placed := false
	search:
		for d := range 1 << min(16, slotBits) {
			for i, e := range es {
				s := (keys[e]*h.c2>>h.slotShift ^ uint64(d)) & mask
				if used[s] || slices.Contains(slots[:i], s) {
					continue search
				}
				slots[i] = s
			}
			for i, e := range es {
				used[slots[i]] = true
				ri, _ := slices.BinarySearch(h.ranks, ranks[e])
				h.val[slots[i]] = uint16(ri)
			}
			h.disp[b] = uint16(d)
			placed = true
			break
		}
		if !placed {
			return nil
		}
	}
	return h
}

// lookup ranks a hand without a flush from its rank key.
func (h *perfectHash) lookup(key uint64) Rank {
	s := (key*h.c2>>h.slotShift ^ uint64(h.disp[key*h.c1>>h.bucketShift])) & uint64(len(h.val)-1)
	return h.ranks[h.val[s]]
}

// laneCounts counts the cards of each suit lane at once (a SWAR population count): the count of
// suit s is in bits 16s…16s+7.
func laneCounts(x uint64) uint64 {
	c := x - (x>>1)&0x5555555555555555
	c = c&0x3333333333333333 + (c>>2)&0x3333333333333333
	c = (c + c>>4) & 0x0f0f0f0f0f0f0f0f
	return (c + c>>8) & (0xff * lanes)
}

// flush ranks the flush in x, given its lane counts, and reports whether there is one: a lane of
// five cards or more. With at most seven cards a flush leaves two cards for the other suits, too
// few for four of a kind or a full house, so the flush suit alone decides.
func flush(x, counts uint64) (Rank, bool) {
	f := (counts + 11*lanes) & (0x10 * lanes)
	if f == 0 {
		return 0, false
	}
	fm := uint32(x>>(bits.TrailingZeros64(f)&^15)) & rankSet
	if st := straightTop[fm]; st != 0 {
		return Rank(StraightFlush)<<20 | Rank(st)<<16, true
	}
	return Rank(Flush)<<20 | Rank(top5[fm]), true
}

// EvalMask ranks the best five cards of a set of five, six or seven cards. It does no checking:
// a set of another size gives a meaningless Rank (use Eval for checked input).
func EvalMask(m Mask) Rank {
	x := uint64(m)
	counts := laneCounts(x)
	if r, ok := flush(x, counts); ok {
		return r
	}
	n := (counts + counts>>16 + counts>>32 + counts>>48) & 0xff
	h := tables()[n&7]
	if h == nil {
		return evalBits(m)
	}
	key := spread(x&rankSet) + spread(x>>16&rankSet) + spread(x>>32&rankSet) + spread(x>>48&rankSet)
	return h.lookup(key)
}

// Eval7 ranks the best five of seven cards without checking them (see Eval).
func Eval7(h *[7]card.Card) Rank {
	a, b, c, d := &keyed[h[0]], &keyed[h[1]], &keyed[h[2]], &keyed[h[3]]
	e, f, g := &keyed[h[4]], &keyed[h[5]], &keyed[h[6]]
	x := uint64(a.bit | b.bit | c.bit | d.bit | e.bit | f.bit | g.bit)
	if r, ok := flush(x, laneCounts(x)); ok {
		return r
	}
	return tables()[7].lookup(a.key + b.key + c.key + d.key + e.key + f.key + g.key)
}

// Eval5 ranks five cards without checking them (see Eval).
func Eval5(h *[5]card.Card) Rank {
	a, b, c, d, e := &keyed[h[0]], &keyed[h[1]], &keyed[h[2]], &keyed[h[3]], &keyed[h[4]]
	x := uint64(a.bit | b.bit | c.bit | d.bit | e.bit)
	if r, ok := flush(x, laneCounts(x)); ok {
		return r
	}
	return tables()[5].lookup(a.key + b.key + c.key + d.key + e.key)
}
