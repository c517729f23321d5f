// Replaced by the real harness (database + server) in the platform commit.
export default async function setup() {}
