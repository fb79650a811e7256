# SPDX-License-Identifier: Apache-2.0
"""Walking a JSON document for the corpus generators (make_corpus.py, make_results_corpus.py)."""


def paths(node, prefix=()):
    """Every path of the document, the root's () first: tuples of keys and list indices."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


def parent(node, path):
    """The container holding the element at a non-empty path (index it with path[-1])."""
    for k in path[:-1]:
        node = node[k]
    return node
