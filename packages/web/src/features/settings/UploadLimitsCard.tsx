import { DEFAULT_UPLOAD_SETTINGS, UPLOAD_LIMITS, UPLOAD_SETTINGS_BOUNDS } from '@adam/contracts';
import { SectionCard } from './SectionCard';

const B = UPLOAD_SETTINGS_BOUNDS;
const D = DEFAULT_UPLOAD_SETTINGS;
const n = (v: number) => v.toLocaleString('en');

/**
 * The `uploads` settings section: the limits of Add Sources, Upload files. The server reads
 * them at each upload, so a saved change applies to the next one.
 */
export function UploadLimitsCard() {
  return (
    <SectionCard
      section="uploads"
      title="Upload Limits"
      description="Checked as the bytes arrive: an upload past a limit is refused and nothing of it is kept. A change applies to the next upload."
      failedText="The upload limits could not be loaded."
      savedText="Upload limits saved"
      saveLabel="Save Upload Limits"
      numberFields={[
        {
          field: 'max_file_mib',
          label: 'Max File Size',
          description: `One file, ${n(B.max_file_mib.min)} to ${n(B.max_file_mib.max)} MiB.`,
          bounds: B.max_file_mib,
          suffix: ' MiB',
        },
        {
          field: 'max_files',
          label: 'Max Files per Upload',
          description: `${n(B.max_files.min)} to ${n(B.max_files.max)}.`,
          bounds: B.max_files,
        },
        {
          field: 'max_total_mib',
          label: 'Max Upload Size',
          description: `All files together, up to ${n(B.max_total_mib.max)} MiB.`,
          bounds: B.max_total_mib,
          suffix: ' MiB',
        },
      ]}
      defaults={
        <>
          Defaults: {n(D.max_file_mib)} MiB a file, {n(D.max_files)} files, {n(D.max_total_mib)} MiB
          in all. A PDF is also held to {n(UPLOAD_LIMITS.max_pages)} pages.
        </>
      }
    />
  );
}
