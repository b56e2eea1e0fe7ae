/** A firmware image's record (DESIGN §13), as the API answers it; its bytes are in FirmwareBlobs (store/). */
export interface Firmware {
  id: string;
  projectId: string;
  name: string;
  version: string;
  size: number;
  sha256: string;
  createdAt: string;
}
