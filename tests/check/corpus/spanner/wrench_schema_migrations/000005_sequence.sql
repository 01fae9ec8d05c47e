-- source: https://github.com/RoryQ/wrench/blob/9cab25aeb63555ca691a1aed3ee75bb47c200bf5/cmd/testdata/schema_test/migrations/000005_sequence.sql
CREATE SEQUENCE MySequence OPTIONS (sequence_kind='bit_reversed_positive');
