"""Where keys fall in key order, read from their words: the 8 bytes after the prefix every key
shares, as a big-endian number (prefix_words), compared as numbers, whole keys compared only
where words tie. Keys are numpy 'S' arrays (fixed width, trailing NUL bytes ignored, as numpy
compares them). The split model (splitmodel.py) places a window's writes among its range
boundaries and takes its quantiles so."""

from __future__ import annotations

import numpy as np

from keybench.model.positions import members, sorted_positions


def common_prefix(*arrays: np.ndarray, limit: int | None = None) -> int:
    """Bytes every key of every array shares at its start (NUL past its width), at most `limit`."""
    reference = next(a for a in arrays if len(a))[0]
    ref = np.frombuffer(reference.ljust(max(a.dtype.itemsize for a in arrays), b"\x00"), dtype=np.uint8)
    shared = len(ref) if limit is None else min(limit, len(ref))
    for keys in arrays:
        if not len(keys):
            continue
        width = keys.dtype.itemsize
        keys = np.ascontiguousarray(keys)
        matrix = keys.view(np.uint8).reshape(len(keys), width)
        j = 0
        differ = 0
        while j < shared and j + 8 <= width:  # eight bytes a pass: each key's bytes j..j+8 as one number
            words = np.ndarray((len(keys),), dtype="<u8", buffer=keys, offset=j, strides=(width,))
            differ = int(np.bitwise_or.reduce(words ^ ref[j:j + 8].view("<u8")[0]))
            if differ:
                j += ((differ & -differ).bit_length() - 1) // 8  # the lowest set bit is the first byte that differs
                break
            j += 8
        while not differ and j < shared and ((matrix[:, j] == ref[j]).all() if j < width else ref[j] == 0):
            j += 1
        shared = min(j, shared)
    return shared


def prefix_words(keys: np.ndarray, start: int, size: int = 8) -> np.ndarray:
    """Bytes start..start+size (at most 8) of each key as a big-endian number (NUL past the
    key's width): keys that share their first `start` bytes compare as these numbers do, or tie."""
    width = keys.dtype.itemsize
    keys = np.ascontiguousarray(keys)
    if start < width and 8 <= width and len(keys):
        # each key's eight bytes read in place, in one pass: from `start`, or near the key's
        # end from as close to it as the width allows, then shifted past the bytes before it
        read = min(start, width - 8)
        words = np.ndarray((len(keys),), dtype=">u8", buffer=keys, offset=read, strides=(width,)).astype(np.uint64)
        if read < start:
            words <<= np.uint64(8 * (start - read))
        return words >> np.uint64(8 * (8 - size)) if size < 8 else words
    matrix = keys.view(np.uint8).reshape(len(keys), width)[:, start:start + size]
    if matrix.shape[1] < 8:
        matrix = np.hstack([matrix, np.zeros((len(keys), 8 - matrix.shape[1]), np.uint8)])
    words = np.ascontiguousarray(matrix).view(">u8").ravel().astype(np.uint64)
    return words >> np.uint64(8 * (8 - size)) if size < 8 else words


def key_order(keys: np.ndarray, start: int, words: np.ndarray | None = None) -> np.ndarray:
    """np.argsort(keys) (equal keys in any order) for keys that share their first `start`
    bytes, by sorts of numbers: numpy sorts whole keys comparing them byte by byte, two to
    three times slower. Keys are ranked by their word (`words`, if given), then by that rank
    and as many of their next bytes as fit beside it in 64 bits, again and again, until each
    key has its own rank or every byte has been read."""
    count, width = len(keys), keys.dtype.itemsize
    order = np.arange(count)
    rank, distinct, at = np.zeros(count, np.uint64), 1, start
    new = np.ones(count, dtype=bool)
    while at < width and distinct < count:
        bits = (distinct - 1).bit_length()
        size = (64 - bits) // 8
        code = words if at == start and words is not None else prefix_words(keys, at, size)
        if bits:
            # Bytes the keys of each rank all share (a date in a timestamp) change no rank:
            # skipped, once a sample of the keys and then all of them say so (ranks of a key
            # or two each are not worth asking).
            if 2 * distinct <= count and _same_within_ranks(code, rank, order[new], max(1, count // 1024)):
                at += size
                continue
            code = code | (rank << np.uint64(8 * size))
        order = np.argsort(code)
        at += size
        if at >= width:  # the last bytes: the order is final, the ranks are not needed
            break
        ordered = code[order]
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        ranks = np.cumsum(new, dtype=np.uint64)
        ranks -= np.uint64(1)
        distinct = int(ranks[-1]) + 1
        rank[order] = ranks
        if distinct < count and distinct <= FEW_RANKS and (in_input := _in_input_order(keys, rank, at)) is not None:
            return in_input
    return order


# Ranks a stable sort orders in one radix pass (numpy sorts 16-bit numbers so), and the keys
# a sample of them tries first.
FEW_RANKS = 1 << 16
SAMPLE_KEYS = 4096


def _in_input_order(keys: np.ndarray, rank: np.ndarray, at: int) -> np.ndarray | None:
    """The keys' order when, within each rank, their bytes from `at` on ascend in the order
    the keys come in (an entity's key then its write's time: each entity's writes come in
    time order): a stable sort of the ranks orders them, with no pass over those bytes.
    None when they do not; a sample of the keys says so first (what holds for the keys
    holds for any of them taken in their order)."""
    small = rank.astype(np.uint16)
    step = max(1, len(keys) // SAMPLE_KEYS)
    if step > 1:
        sample = np.argsort(small[::step], kind="stable") * step
        if not _ascending_within_ranks(keys[sample], np.arange(len(sample)), small[sample], at):
            return None
    order = np.argsort(small, kind="stable")
    return order if _ascending_within_ranks(keys, order, small[order], at) else None


def _ascending_within_ranks(keys: np.ndarray, order: np.ndarray, rank: np.ndarray, at: int) -> bool:
    """Whether each key's bytes from `at` on are at most the next key's in `order` where the
    two share a rank (`rank`: the keys' ranks in that order)."""
    undecided = rank[1:] == rank[:-1]
    for start in range(at, keys.dtype.itemsize, 8):
        if not undecided.any():
            break
        words = prefix_words(keys, start)[order]
        if (undecided & (words[:-1] > words[1:])).any():
            return False
        undecided &= words[:-1] == words[1:]
    return True


def _same_within_ranks(code: np.ndarray, rank: np.ndarray, firsts: np.ndarray, step: int) -> bool:
    """Whether each key's code is that of the first key of its rank (`firsts`, by rank)."""
    first_codes = code[firsts]
    return bool((code[::step] == first_codes[rank[::step].view(np.int64)]).all()
                and (code == first_codes[rank.view(np.int64)]).all())


def ordered_range_of(cuts: np.ndarray, keys: np.ndarray, order: np.ndarray) -> np.ndarray:
    """range_of for keys whose order (key_order) is known: the cuts are placed among the
    keys, a few hundred binary searches, and each key's range follows from its place."""
    below = _below_cuts(cuts, keys, order)
    bins = np.empty(len(keys), dtype=np.intp)
    bins[order] = np.cumsum(np.bincount(below, minlength=len(keys) + 1)[:len(keys)])
    return bins


def ordered_range_counts(cuts: np.ndarray, keys: np.ndarray, order: np.ndarray) -> np.ndarray:
    """range_counts for keys whose order (key_order) is known."""
    return np.diff(np.concatenate(([0], _below_cuts(cuts, keys, order), [len(keys)])))


def _below_cuts(cuts: np.ndarray, keys: np.ndarray, order: np.ndarray) -> np.ndarray:
    """How many keys lie before each cut."""
    if cuts.dtype.itemsize > keys.dtype.itemsize:  # a cut wider than the keys: compared whole
        cuts, keys = same_width(cuts, keys)
    return np.searchsorted(keys, cuts.astype(keys.dtype), side="left", sorter=order)


def keys_of_words(keys: np.ndarray, start: int, words: np.ndarray) -> np.ndarray:
    """Keys of `keys`' width: the `start` bytes they share, then each word (prefix_words' inverse)."""
    width = keys.dtype.itemsize
    matrix = np.zeros((len(words), start + 8), dtype=np.uint8)
    head = np.ascontiguousarray(keys[:1]).view(np.uint8)[:start]  # past the keys' width, the prefix is NULs
    matrix[:, :len(head)] = head
    matrix[:, start:] = np.asarray(words, dtype=np.uint64).astype(">u8").view(np.uint8).reshape(-1, 8)
    return np.ascontiguousarray(matrix[:, :width]).view(f"S{width}").ravel()


def same_width(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    width = max(a.dtype.itemsize, b.dtype.itemsize)
    return a.astype(f"S{width}", copy=False), b.astype(f"S{width}", copy=False)


def range_counts(cuts: np.ndarray, keys: np.ndarray, start: int, words: np.ndarray | None = None,
                 ordered: np.ndarray | None = None, select: np.ndarray | None = None) -> np.ndarray:
    """How many keys fall in each range: before the first of the sorted distinct `cuts`, then
    from each cut to the next; `select` (indexes, ascending) counts those keys only. Every key
    and cut shares its first `start` bytes; the 8-byte words after them (`words`, of
    keys[select] if given; `ordered` sorted) decide, whole keys compared only where a key's
    word ties a cut's. Without `ordered`, each key is placed among the (few) cuts: range_of."""
    if words is None:
        words = prefix_words(keys if select is None else keys[select], start)
    if not len(cuts) or not len(words):
        return np.bincount(np.zeros(len(words), dtype=np.int64), minlength=len(cuts) + 1)
    if ordered is None:
        return np.bincount(range_of(cuts, keys, start, words, select), minlength=len(cuts) + 1)
    cut_words = prefix_words(cuts, start)
    below = np.searchsorted(ordered, cut_words, side="left")  # keys before each cut
    tied = np.zeros(0, np.int64) if _words_decide(cuts, keys, start) else np.flatnonzero(
        np.searchsorted(ordered, cut_words, side="right") > below)
    if len(tied):
        # Of the keys sharing a cut's word, those before the cut, each placed among the cuts
        # whole: a key lies before cut c when c >= cuts_to(key), and c is one of the cuts of
        # its word when c < word_end(key): counted by +1 at the one, -1 at the other.
        at = members(words, np.unique(cut_words[tied]))
        word_end = np.searchsorted(cut_words, words[at], side="right")
        cuts_to = _placed(cuts, cut_words, word_end - 1, keys, at if select is None else select[at], start)
        steps = np.bincount(cuts_to, minlength=len(cuts) + 1) - np.bincount(word_end, minlength=len(cuts) + 1)
        below[tied] += np.cumsum(steps)[tied]
    return np.diff(np.concatenate(([0], below, [len(words)])))


def _words_decide(cuts: np.ndarray, keys: np.ndarray, start: int) -> bool:
    """Keys and cuts within their shared prefix and one word: the words alone order them."""
    return max(keys.dtype.itemsize, cuts.dtype.itemsize) <= start + 8


def range_of(cuts: np.ndarray, keys: np.ndarray, start: int, words: np.ndarray,
             select: np.ndarray | None = None) -> np.ndarray:
    """The range each key falls in (the cuts at or below it); `words` of keys[select], if given."""
    cut_words = prefix_words(cuts, start)
    bins = sorted_positions(cut_words, words, side="right")
    if len(cuts) and not _words_decide(cuts, keys, start):
        # A key that ties a cut's word (the last cut at or below it) is placed against its cuts whole.
        tied = np.flatnonzero((bins > 0) & (cut_words[np.maximum(bins - 1, 0)] == words))
        if len(tied):
            bins[tied] = _placed(cuts, cut_words, bins[tied] - 1, keys, tied if select is None else select[tied], start)
    return bins


def order_statistics(keys: np.ndarray, positions: np.ndarray, start: int | None = None,
                     words: np.ndarray | None = None, ordered: np.ndarray | None = None) -> np.ndarray:
    """np.sort(keys)[positions] without sorting whole keys: the 8-byte words past the first
    `start` bytes (which every key shares; None: as many as they share) are sorted, and only
    keys whose word is one of the chosen ones are sorted whole."""
    if not len(positions):
        return keys[:0]
    start = common_prefix(keys) if start is None else start
    words = prefix_words(keys, start) if words is None else words
    ordered = np.sort(words) if ordered is None else ordered
    if keys.dtype.itemsize <= start + 8:  # a key is its shared prefix and its word: no key sorted
        return keys_of_words(keys, start, ordered[positions])
    chosen = np.unique(ordered[positions])
    picked = members(words, chosen)  # every key whose word was chosen: sorted, they hold the answers
    # A position's key is among those of its word: past the keys of lower words, by its place in the word.
    lower = np.searchsorted(chosen, ordered[positions])
    before = np.searchsorted(ordered, chosen, side="left")  # keys of lower words than each chosen one
    in_picked = np.concatenate(([0], np.cumsum(np.searchsorted(ordered, chosen, side="right") - before)))[lower]
    ranks = np.searchsorted(chosen, words[picked])
    return _sorted_at(keys, picked, ranks, len(chosen), start, in_picked + positions - before[lower])


# Keys whose words tie are ordered by a second word before whole keys are compared: a key
# shape that starts with few values (a tenant, a device type) leaves most keys of a window
# tied in their first word, and numpy compares whole keys byte by byte. Past this many
# distinct first words, their rank leaves too few bits of the second word to tell keys apart.
RANKED_WORDS = 1 << 16


def _tie_codes(ranks: np.ndarray, second_words: np.ndarray, count: int) -> np.ndarray:
    """A number per key that orders keys as they are ordered (a < b where a's is lower; equal
    numbers say nothing): the rank of its first word among `count` distinct ones in the high
    bits, the leading bits of its second word below."""
    bits = np.uint64(max(1, (count - 1).bit_length()))
    return (ranks.astype(np.uint64) << (np.uint64(64) - bits)) | (second_words >> bits)


def _second_words(keys: np.ndarray, rows: np.ndarray, start: int) -> np.ndarray:
    """prefix_words(keys[rows], start + 8): read in place when most rows are wanted."""
    if 4 * len(rows) > len(keys):
        return prefix_words(keys, start + 8)[rows]
    return prefix_words(keys[rows], start + 8)


def _placed(cuts: np.ndarray, cut_words: np.ndarray, of_cut: np.ndarray, keys: np.ndarray, rows: np.ndarray,
            start: int) -> np.ndarray:
    """np.searchsorted(cuts, keys[rows], side="right") for keys whose word is that of a cut
    (cut_words[of_cut]): by their tie codes, whole keys compared where those tie too."""
    distinct = np.unique(cut_words)
    if len(distinct) > RANKED_WORDS:
        whole_cuts, whole_keys = same_width(cuts, keys[rows])
        return np.searchsorted(whole_cuts, whole_keys, side="right")
    rank = np.searchsorted(distinct, cut_words)
    cut_codes = _tie_codes(rank, prefix_words(cuts, start + 8), len(distinct))
    key_codes = _tie_codes(rank[of_cut], _second_words(keys, rows, start), len(distinct))
    placed = sorted_positions(cut_codes, key_codes, side="right")
    tied = np.flatnonzero((placed > 0) & (cut_codes[np.maximum(placed - 1, 0)] == key_codes))
    if len(tied):  # among the cuts of its code only: those before are lower, those after higher
        new_code = np.concatenate(([True], cut_codes[1:] != cut_codes[:-1]))
        first_of_code = np.maximum.accumulate(np.where(new_code, np.arange(len(cuts)), 0))
        placed[tied] = _bisected(cuts, keys[rows[tied]], first_of_code[placed[tied] - 1], placed[tied])
    return placed


def _bisected(cuts: np.ndarray, keys: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """np.searchsorted(cuts, keys, side="right") for keys that lie past cuts[:low] and before
    cuts[high:]: a binary search of each key's few cuts at once, one comparison of whole keys
    per key and halving (numpy compares two arrays of keys item by item fast, and searches
    one among many slowly)."""
    cuts, keys = same_width(cuts, keys)
    low, high = low.copy(), high.copy()
    searching = np.flatnonzero(low < high)
    while len(searching):
        mid = (low[searching] + high[searching]) // 2
        past = cuts[mid] <= keys[searching]
        low[searching[past]] = mid[past] + 1
        high[searching[~past]] = mid[~past]
        searching = searching[low[searching] < high[searching]]
    return low


def _sorted_at(keys: np.ndarray, rows: np.ndarray, ranks: np.ndarray, count: int, start: int,
               at: np.ndarray) -> np.ndarray:
    """np.sort(keys[rows])[at], for rows whose words rank so among `count` distinct ones: their
    tie codes are sorted, and whole keys only within the runs of equal codes `at` falls in."""
    if count > RANKED_WORDS:
        return np.sort(keys[rows])[at]
    codes = _tie_codes(ranks, _second_words(keys, rows, start), count)
    order = np.argsort(codes)
    code = codes[order]
    out = keys[rows[order[at]]]
    low, high = np.searchsorted(code, code[at], side="left"), np.searchsorted(code, code[at], side="right")
    tied = np.flatnonzero(high - low > 1)
    if len(tied):
        low, high = np.unique(low[tied]), np.unique(high[tied])  # the runs `at` falls in, ascending
        lengths = high - low
        places = np.repeat(low - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
        run_keys, run_codes = keys[rows[order[places]]], code[places]
        by_key = np.argsort(run_keys, kind="stable")
        run_keys = run_keys[by_key[np.argsort(run_codes[by_key], kind="stable")]]
        out[tied] = run_keys[np.searchsorted(places, at[tied])]
    return out


def quantile_positions(count: int, pieces: int) -> np.ndarray:
    """Positions in `count` sorted items that cut them into `pieces` equal counts (fewer
    with fewer items): the splitmodel's quantile cuts."""
    pieces = min(pieces, count)
    if pieces <= 1:
        return np.zeros(0, dtype=np.int64)
    return (np.arange(1, pieces, dtype=np.int64) * count) // pieces
