"""spaCy's ``senter`` run as ``nlp.pipe`` runs it, with its per-token layers computed once per
distinct token.

The senter of ``en_core_web_sm`` is a tagger over a small Tok2Vec: an *embedding* that reads
each token on its own (hashed NORM, PREFIX, SUFFIX, SHAPE and SPACY attributes, a maxout layer
and a layer norm), then a window encoder that mixes each token with its neighbours, then a
softmax per token. The embedding of a token depends on its five attribute values alone, and on
real text most tokens repeat (the, of, a comma), so :func:`senter_starts` embeds each distinct
row of attributes once and gives every token its row's vector: the same numbers, row for row,
as embedding every token, since each layer computes a row from that row alone. The encoder and
the softmax run on every token, as in ``nlp.pipe``. A pipeline whose senter is not built this
way is run by ``nlp.pipe``. ``tests/test_sentences_distinct.py`` compares the scores and the
sentence starts with ``nlp.pipe``'s on generated and real text.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

#: Tokens embedded in one batch (a batch's distinct attribute rows are found together).
BATCH_TOKENS = 20_000
#: The layer names of the senter's model this module knows how to run (spaCy's Tok2Vec.v2 with
#: MultiHashEmbed.v2 and MaxoutWindowEncoder.v2, under a softmax).
_EMBED_LAYERS = ("extract_features", "list2ragged", "with_array", "with_array", "ragged2list")
#: Odd 64-bit multipliers that fold a row of attributes into one key (rows sharing a key are
#: checked to be equal: a collision only costs the shortcut, never a wrong vector).
_ROW_MULTIPLIERS = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD],
    dtype=np.uint64,
)


def _parts(nlp: Any) -> tuple[Any, ...] | None:
    """(senter, feature extractor, hashed embeddings, maxout + layer norm, encoder, softmax) of
    ``nlp``'s senter; None when its model is built otherwise."""
    if "senter" not in nlp.pipe_names:
        return None
    senter = nlp.get_pipe("senter")
    model = senter.model
    try:
        tok2vec, output = model.layers
        embed, encoder = tok2vec.layers
        names = tuple(layer.name.split("(")[0] for layer in embed.layers)
        extract, _, hashed, maxout, _ = embed.layers
    except ValueError:
        return None
    if names != _EMBED_LAYERS or not output.name.startswith("with_array(softmax"):
        return None
    if extract.attrs.get("columns") is None or not encoder.name.startswith("with_array("):
        return None
    return senter, extract, hashed.layers[0], maxout.layers[0], encoder, output


def runs_senter_itself(nlp: Any) -> bool:
    """Whether :func:`senter_starts` runs ``nlp``'s senter itself (else it uses ``nlp.pipe``)."""
    return _parts(nlp) is not None


def _distinct_rows(rows: Any) -> tuple[Any, Any]:
    """(distinct rows, index of each row's distinct row) of a 2-D uint64 array; every row is
    its own when two different rows fold into one key."""
    keys = (rows * _ROW_MULTIPLIERS[: rows.shape[1]]).sum(axis=1, dtype=np.uint64)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    distinct = rows[first]
    if not np.array_equal(distinct[inverse], rows):  # a collision: no shortcut for this batch
        return rows, np.arange(len(rows))
    return distinct, inverse


def senter_scores(nlp: Any, docs: Sequence[Any]) -> list[Any]:
    """The senter's scores for ``docs`` (one array of tokens x 2 per doc), each distinct row of
    attributes embedded once (module docstring). ``nlp`` must pass :func:`runs_senter_itself`."""
    parts = _parts(nlp)
    assert parts is not None, "senter_scores needs a senter that runs_senter_itself accepts"
    _, extract, hashed, maxout, encoder, output = parts
    features = extract.predict(list(docs))
    lengths = [len(f) for f in features]
    rows = np.concatenate(features) if features else np.zeros((0, 5), dtype=np.uint64)
    distinct, inverse = _distinct_rows(rows.astype(np.uint64, copy=False))
    embedded = maxout.predict(hashed.predict(extract.ops.asarray(distinct, dtype=rows.dtype)))[inverse]
    per_doc = list(extract.ops.unflatten(embedded, extract.ops.asarray1i(lengths)))
    return list(output.predict(encoder.predict(per_doc)))


def senter_starts(nlp: Any, blocks: list[str]) -> list[list[int]]:
    """Sentence start offsets of each block, as ``nlp.pipe`` with the senter finds them (a
    batch of about :data:`BATCH_TOKENS` tokens at a time: only one batch's docs are kept)."""
    parts = _parts(nlp)
    if parts is None:
        return [[sent.start_char for sent in doc.sents] for doc in nlp.pipe(blocks, batch_size=64)]
    senter = parts[0]
    found: list[list[int]] = []
    batch: list[Any] = []
    size = 0
    for k, block in enumerate(blocks):
        doc = nlp.make_doc(block)
        batch.append(doc)
        size += len(doc)
        if size >= BATCH_TOKENS or k == len(blocks) - 1:
            if size:  # as the senter's predict: a batch without tokens has no scores to set
                senter.set_annotations(batch, [scores.argmax(axis=1) for scores in senter_scores(nlp, batch)])
            found.extend([sent.start_char for sent in doc.sents] for doc in batch)
            batch, size = [], 0
    return found
