"""How a run's pages are cut into batches: none over the batch size, every worker busy in the last round."""

import math

import pytest

from runs.batches import batch_bounds


@pytest.mark.parametrize("count, batch_size, workers, sizes", [
    (29, 8, 2, [8, 7, 7, 7]),  # not 8, 8, 8, 5: one worker would parse 16 pages while the other waits after 13
    (16, 8, 2, [8, 8]),
    (17, 8, 2, [5, 4, 4, 4]),
    (10, 8, 1, [5, 5]),
    (5, 2, 1, [2, 2, 1]),
    (3, 8, 4, [1, 1, 1]),  # fewer pages than workers: a page each
    (1, 8, 1, [1]),
    (0, 8, 2, []),
])
def test_batches_are_contiguous_even_and_a_whole_number_of_rounds(count, batch_size, workers, sizes):
    bounds = batch_bounds(count, batch_size, workers)
    assert [end - start for start, end in bounds] == sizes
    assert [start for start, _ in bounds] == [0, *(end for _, end in bounds)][:len(bounds)]
    assert all(size <= batch_size for size in sizes)


def test_every_count_is_cut_within_the_batch_size_into_rounds_of_workers():
    for workers in (1, 2, 3, 8):
        for batch_size in (1, 2, 5, 8):
            for count in range(1, 60):
                sizes = [end - start for start, end in batch_bounds(count, batch_size, workers)]
                assert sum(sizes) == count and max(sizes) <= batch_size and max(sizes) - min(sizes) <= 1
                assert len(sizes) % workers == 0 or len(sizes) == count  # whole rounds, or a page a batch
                assert len(sizes) < math.ceil(count / batch_size) + workers  # no round more than needed
