-- source: https://github.com/GoogleCloudPlatform/pgadapter/blob/05fdac778ef57bb74e432f8105a4cb38f036750f/samples/nodejs/prisma-sample-app/prisma/migrations/20250323192300_auto_generated_pk/migration.sql
-- CreateTable
CREATE TABLE "TicketSale" (
    "id" SERIAL PRIMARY KEY,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "concertId" TEXT NOT NULL,
    "customerName" TEXT NOT NULL,
    "price" NUMERIC,
    "seats" TEXT[] NOT NULL,
    CONSTRAINT "TicketSale_concertId_fkey" FOREIGN KEY ("concertId") REFERENCES "Concert"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
