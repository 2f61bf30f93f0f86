/** A file the service made for a caller to download (the CSV export past one buffered answer). */
export interface ExportFile {
  /** The file name a browser saves it under. */
  name: string;
  contentType: string;
}

/** Where an export too large for one answer is written, and from where its caller downloads it. */
export interface ExportStore {
  /**
   * Writes every chunk, in order, as one file of the tenant's and answers a short-lived URL to GET
   * it. A failure on any chunk or write fails the call and leaves no file to offer.
   */
  save(tenant: string, chunks: AsyncIterable<string>, file: ExportFile): Promise<string>;
}
