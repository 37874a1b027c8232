/* Waits' stacks by Python place (src/recorder/wait_places.c): when the recorder may give a
 * wait the stack unwound before at its place instead of unwinding it. */
#include "harness.h"

#include "recorder/wait_places.h"

/* What take_stack does for one wait at a place whose unwinding gives (hash, id): the id
 * recorded, and how many times it unwound (in *unwound). */
static uint32_t one_wait(struct kg_wait_places *w, uint64_t key, uint64_t hash, uint32_t id,
			 int *unwound)
{
	uint32_t got = wait_places_reuse(w, key);
	if (got)
		return got;
	(*unwound)++;
	wait_places_learn(w, key, hash, id);
	return id;
}

TEST(a_steady_place_is_unwound_first_then_once_in_check)
{
	struct kg_wait_places w;
	CHECK_EQ_INT(wait_places_init(&w, 64), 0);
	int unwound = 0;
	for (int i = 0; i < WAIT_PLACE_TRUST + 10 * WAIT_PLACE_CHECK; i++)
		CHECK_EQ_INT((int)one_wait(&w, 77, 0xabc, 5, &unwound), 5);
	CHECK_EQ_INT(unwound, WAIT_PLACE_TRUST + 10);
	CHECK_EQ_INT((int)w.checked, 10);
	CHECK_EQ_INT((int)w.reused, 10 * (WAIT_PLACE_CHECK - 1));
	CHECK_EQ_INT((int)w.places, 1);
	CHECK_EQ_INT((int)w.varying, 0);
	wait_places_free(&w);
}

TEST(a_place_with_two_native_paths_is_unwound_every_time)
{
	struct kg_wait_places w;
	CHECK_EQ_INT(wait_places_init(&w, 64), 0);
	int unwound = 0;
	/* the second path shows before the place is trusted */
	for (int i = 0; i < 100; i++) {
		uint32_t id = i % 3 == 2 ? 9 : 5;
		CHECK_EQ_INT((int)one_wait(&w, 77, id == 9 ? 0x999 : 0xabc, id, &unwound), (int)id);
	}
	CHECK_EQ_INT(unwound, 100);
	CHECK_EQ_INT((int)w.varying, 1);
	CHECK_EQ_INT((int)w.reused, 0);
	wait_places_free(&w);
}

/* Place 77 trusted with stack 5 (hash 0xabc) and reused up to its next check. */
static void trusted_until_check(struct kg_wait_places *w, int *unwound)
{
	CHECK_EQ_INT(wait_places_init(w, 64), 0);
	for (int i = 0; i < WAIT_PLACE_TRUST; i++)
		one_wait(w, 77, 0xabc, 5, unwound);
	for (int i = 0; i < WAIT_PLACE_CHECK - 1; i++)
		CHECK_EQ_INT((int)wait_places_reuse(w, 77), 5);
}

TEST(a_check_that_finds_another_path_stops_the_reuse)
{
	struct kg_wait_places w;
	int unwound = 0;
	trusted_until_check(&w, &unwound);
	/* the check unwinds: this time the path differs */
	CHECK_EQ_INT((int)one_wait(&w, 77, 0xdef, 6, &unwound), 6);
	CHECK_EQ_INT((int)w.varying, 1);
	for (int i = 0; i < 50; i++)
		CHECK_EQ_INT((int)wait_places_reuse(&w, 77), 0);
	wait_places_free(&w);
}

TEST(new_ids_after_the_tables_were_emptied_are_the_same_stack)
{
	struct kg_wait_places w;
	int unwound = 0;
	trusted_until_check(&w, &unwound);
	/* the check unwinds the same stack, which has a new id: reused from then on */
	CHECK_EQ_INT((int)one_wait(&w, 77, 0xabc, 812, &unwound), 812);
	CHECK_EQ_INT((int)w.varying, 0);
	CHECK_EQ_INT((int)wait_places_reuse(&w, 77), 812);
	wait_places_free(&w);
}

TEST(places_apart_and_a_full_table)
{
	struct kg_wait_places w;
	CHECK_EQ_INT(wait_places_init(&w, 16), 0);
	int unwound = 0;
	/* 40 places with the same high bits: 16 slots, every key probes all of them */
	for (int round = 0; round < WAIT_PLACE_TRUST + 2; round++)
		for (uint64_t k = 1; k <= 40; k++)
			CHECK_EQ_INT((int)one_wait(&w, k, k * 11, (uint32_t)k, &unwound), (int)k);
	CHECK_EQ_INT((int)w.places, 16);
	/* the 16 places in the table were reused in the last two rounds, the others never */
	CHECK_EQ_INT((int)w.reused, 2 * 16);
	CHECK_EQ_INT(unwound, 40 * (WAIT_PLACE_TRUST + 2) - 2 * 16);
	/* key 0 (no Python place) and a table that could not be made reuse nothing */
	CHECK_EQ_INT((int)wait_places_reuse(&w, 0), 0);
	wait_places_learn(&w, 0, 1, 1);
	CHECK_EQ_INT((int)w.places, 16);
	wait_places_free(&w);
	CHECK(wait_places_init(&w, 12) < 0);
	CHECK_EQ_INT((int)wait_places_reuse(&w, 5), 0);
	wait_places_learn(&w, 5, 1, 1);
}
