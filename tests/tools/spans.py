"""Time spans (start, end) for the scripts that recount kgantt's figures from raw events:
their union, and the time two unions have in common. Written once for all of them."""


def union(spans):
    """The spans merged: sorted, disjoint [start, end] lists."""
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def common(a, b):
    """Time two sorted lists of disjoint spans have in common."""
    t, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        t += max(0, e - s)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t
