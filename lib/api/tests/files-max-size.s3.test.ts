// The same tests with the bytes in S3 (a real Ceph RGW): CONTRACT §6 holds through either store.
process.env.ARCA_TEST_BLOB_STORE = "s3";
await import("./files-max-size.test");
export {};
