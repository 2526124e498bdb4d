/// "Did you mean" suggestions by edit distance.
public enum Suggestions {
    /// The closest candidate to `word`, if it is close enough to be a plausible typo
    /// (distance at most 1 for short words, 2 up to 8 characters, 3 beyond).
    public static func closest<S: Sequence>(to word: String, in candidates: S) -> String? where S.Element == String {
        let limit = word.count <= 3 ? 1 : (word.count <= 8 ? 2 : 3)
        var best: (String, Int)?
        for c in candidates {
            let d = distance(word.lowercased(), c.lowercased(), limit: limit)
            if d <= limit, best == nil || d < best!.1 || (d == best!.1 && c < best!.0) { best = (c, d) }
        }
        return best?.0
    }

    /// `; did you mean 'x'?` or the empty string.
    public static func didYouMean<S: Sequence>(_ word: String, in candidates: S) -> String where S.Element == String {
        closest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Edit distance in which swapping two neighbouring letters is one edit (`tset` is 1 from
    /// `test`: optimal string alignment), with an early exit once every cell exceeds `limit`.
    package static func distance(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1), prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            var rowMin = cur[0]
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cur[j] = min(cur[j], before[j - 2] + 1) }
                rowMin = min(rowMin, cur[j])
            }
            if rowMin > limit { return limit + 1 }
            (before, prev, cur) = (prev, cur, before)
        }
        return prev[b.count]
    }
}
