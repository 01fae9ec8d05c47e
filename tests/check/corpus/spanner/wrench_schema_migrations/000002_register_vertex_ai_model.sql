-- source: https://github.com/RoryQ/wrench/blob/43f15a4ac10efb7a123e2d49009902f580ba2018/cmd/testdata/schema_test/migrations/000002_register_vertex_ai_model.sql
CREATE MODEL custom_ai_model
INPUT(
  prompt STRING(MAX),
)
OUTPUT(
  content STRING(MAX),
)
REMOTE
 OPTIONS ( endpoint = '//aiplatform.googleapis.com/projects/${PROJECT_ID}/locations/us-central1/publishers/google/models/${INSTANCE_ID}-${DATABASE_ID}-model', default_batch_size = 1 )